// Maps a character range of a paper's full text to boxes on its PDF pages. Characters inside a run
// share its width evenly (pdf.js gives run boxes, not glyph boxes), which is exact enough to
// highlight evidence; boxes of one line are merged.
import type { HighlightBox } from '../api/index.ts';
import { runStride } from './document.ts';

function firstRunEndingAfter(runs: Float64Array, offset: number): number {
  let low = 0;
  let high = runs.length / runStride;
  while (low < high) {
    const mid = (low + high) >> 1;
    const end = (runs[mid * runStride + 1] ?? 0) + (runs[mid * runStride + 2] ?? 0);
    if (end <= offset) low = mid + 1;
    else high = mid;
  }
  return low;
}

export function highlightBoxes(runs: Float64Array, start: number, end: number): HighlightBox[] {
  const boxes: HighlightBox[] = [];
  if (end <= start) return boxes;
  const count = runs.length / runStride;
  for (let index = firstRunEndingAfter(runs, start); index < count; index++) {
    const base = index * runStride;
    const [page = 0, runStart = 0, length = 0, x = 0, y = 0, width = 0, height = 0] = runs.subarray(
      base,
      base + runStride,
    );
    if (runStart >= end) break;
    const from = Math.max(start, runStart) - runStart;
    const to = Math.min(end, runStart + length) - runStart;
    if (to <= from || length === 0) continue;
    const charWidth = width / length;
    const box = { page, x: x + from * charWidth, y, width: (to - from) * charWidth, height };
    const last = boxes.at(-1);
    const sameLine =
      last?.page === box.page && Math.abs(last.y - box.y) < 0.5 * box.height && box.x >= last.x;
    if (last && sameLine) {
      const right = Math.max(last.x + last.width, box.x + box.width);
      last.y = Math.min(last.y, box.y);
      last.height = Math.max(last.height, box.height);
      last.width = right - last.x;
    } else {
      boxes.push(box);
    }
  }
  return boxes;
}
