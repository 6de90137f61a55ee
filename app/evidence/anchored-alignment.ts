// Alignment of a long span by anchors, for what edit distance cannot bear: PDF text that differs
// in whole stretches (a footnote or caption dropped into the paragraph, a citation key where the PDF
// prints "Kiros et al. (2015)"). The folded span is cut into word chunks of ~20+ characters that
// never cross a placeholder (marked CUT); from
// each early chunk's occurrences the later chunks are found in order, each within its expected
// distance plus `maxGap`. The share of the span's chunk characters found is the similarity.

export interface AnchoredMatch {
  start: number;
  end: number;
  /** Characters of the chunks found / characters of all chunks. */
  coverage: number;
}

const MIN_CHUNK = 20;
const START_CHUNKS = 6;
const OCCURRENCES = 8;

interface Chunk {
  text: string;
  offset: number;
}

/** Where the span had a placeholder (a citation, a formula): no chunk may cross it. */
export const CUT = '\u0000';
const MIN_TAIL = 8;

function chunks(pattern: string): Chunk[] {
  const out: Chunk[] = [];
  let segmentStart = 0;
  for (const segment of pattern.split(CUT)) {
    const inSegment: Chunk[] = [];
    let start = -1;
    for (let i = 0; i <= segment.length; i++) {
      const boundary = i === segment.length || segment[i] === ' ';
      if (start < 0 && !boundary) start = i;
      if (start >= 0 && boundary && i - start >= MIN_CHUNK) {
        inSegment.push({ text: segment.slice(start, i), offset: segmentStart + start });
        start = -1;
      }
    }
    if (start >= 0) {
      const tail = segment.slice(start).trimEnd();
      const last = inSegment.at(-1);
      // A short tail joins the chunk before it rather than anchoring on its own.
      if (last) last.text = segment.slice(last.offset - segmentStart).trimEnd();
      else if (tail.length >= MIN_TAIL)
        inSegment.push({ text: tail, offset: segmentStart + start });
    }
    out.push(...inSegment);
    segmentStart += segment.length + 1;
  }
  return out;
}

const MAX_SPLITS = 2;

/** The chunk cut at the word boundary nearest its middle; halves under MIN_TAIL are dropped. */
function halves(part: Chunk): Chunk[] {
  const middle = part.text.length / 2;
  let cut = -1;
  for (let i = 0; i < part.text.length; i++)
    if (part.text[i] === ' ' && (cut < 0 || Math.abs(i - middle) < Math.abs(cut - middle))) cut = i;
  if (cut < 0) return [];
  return [
    { text: part.text.slice(0, cut), offset: part.offset },
    { text: part.text.slice(cut + 1), offset: part.offset + cut + 1 },
  ].filter((half) => half.text.length >= MIN_TAIL);
}

export function anchoredAlignment(
  haystack: string,
  pattern: string,
  maxGap = 300,
): AnchoredMatch | null {
  const parts = chunks(pattern);
  const total = parts.reduce((sum, part) => sum + part.text.length, 0);
  if (parts.length < 2 || total === 0) return null;
  let best: AnchoredMatch | null = null;
  for (let first = 0; first < Math.min(START_CHUNKS, parts.length); first++) {
    const anchor = parts[first];
    if (!anchor) break;
    let at = haystack.indexOf(anchor.text);
    for (let n = 0; at >= 0 && n < OCCURRENCES; n++) {
      let matched = anchor.text.length;
      let end = at + anchor.text.length;
      let patternEnd = anchor.offset + anchor.text.length;
      const place = (part: Chunk, depth: number): void => {
        const found = haystack.indexOf(part.text, end);
        if (found >= 0 && found - end <= part.offset - patternEnd + maxGap) {
          matched += part.text.length;
          end = found + part.text.length;
          patternEnd = part.offset + part.text.length;
          return;
        }
        // A chunk cut by a footnote or holding one changed word: try its halves.
        if (depth < MAX_SPLITS) for (const half of halves(part)) place(half, depth + 1);
      };
      for (const part of parts.slice(first + 1)) place(part, 0);
      const coverage = matched / total;
      if (!best || coverage > best.coverage) best = { start: at, end, coverage };
      at = haystack.indexOf(anchor.text, at + 1);
    }
    // Chunks before `first` were not found from this anchor: later anchors cannot do better than
    // what is left, so stop once the best already beats that.
    const left = parts.slice(first + 1).reduce((sum, part) => sum + part.text.length, 0) / total;
    if (best && best.coverage >= left) break;
  }
  return best;
}
