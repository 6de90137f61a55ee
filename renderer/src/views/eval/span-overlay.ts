// Predicted spans against gold ones on one paper, as highlight ranges of three tones: hit (both),
// missed (gold only) and extra (predicted only). Offsets are into the text the REPL sees.
import type { LocatedSpan } from '../../../../app/api/index.ts';
import type { HighlightRange, HighlightTone } from '../papers/highlight-tones.ts';

export type OverlayKind = 'hit' | 'missed' | 'extra';
export const overlayTones: Record<OverlayKind, HighlightTone> = {
  hit: 'green',
  missed: 'rose',
  extra: 'amber',
};

interface Interval {
  start: number;
  end: number;
}

function merged(spans: readonly LocatedSpan[], paperId: string): Interval[] {
  const intervals = spans
    .flatMap((span) =>
      span.location?.paperId === paperId
        ? [{ start: span.location.start, end: span.location.end }]
        : [],
    )
    .sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const next of intervals) {
    const last = out.at(-1);
    if (last && next.start <= last.end) last.end = Math.max(last.end, next.end);
    else out.push({ ...next });
  }
  return out;
}

function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a)
    for (const y of b) {
      const start = Math.max(x.start, y.start);
      const end = Math.min(x.end, y.end);
      if (start < end) out.push({ start, end });
    }
  return out;
}

function subtract(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  for (const x of a) {
    let cursor = x.start;
    for (const y of b) {
      if (y.end <= cursor || y.start >= x.end) continue;
      if (y.start > cursor) out.push({ start: cursor, end: y.start });
      cursor = Math.max(cursor, y.end);
    }
    if (cursor < x.end) out.push({ start: cursor, end: x.end });
  }
  return out;
}

export interface Overlay {
  ranges: HighlightRange[];
  chars: Record<OverlayKind, number>;
}

export function spanOverlay(
  predicted: readonly LocatedSpan[],
  gold: readonly LocatedSpan[],
  paperId: string,
): Overlay {
  const p = merged(predicted, paperId);
  const g = merged(gold, paperId);
  const parts: Record<OverlayKind, Interval[]> = {
    hit: intersect(p, g),
    missed: subtract(g, p),
    extra: subtract(p, g),
  };
  const ranges: HighlightRange[] = [];
  const chars = { hit: 0, missed: 0, extra: 0 };
  for (const kind of ['hit', 'missed', 'extra'] as const)
    parts[kind].forEach((interval, index) => {
      chars[kind] += interval.end - interval.start;
      ranges.push({ key: `${kind}-${String(index)}`, ...interval, tone: overlayTones[kind] });
    });
  return { ranges: ranges.sort((a, b) => a.start - b.start), chars };
}

/** The papers a question's spans or gold touch, gold papers first. */
export function papersTouched(
  predicted: readonly LocatedSpan[],
  gold: readonly LocatedSpan[],
): string[] {
  const ids: string[] = [];
  for (const span of [...gold, ...predicted]) {
    const id = span.location?.paperId ?? span.paperId;
    if (id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}
