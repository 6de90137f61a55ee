// Maps character offsets of a paper's fullText to DOM positions in the text panel and back. The
// panel is a <pre> of page blocks, one text node each, laid out by page-text.ts's segments, so an
// offset is found by page and no walk over the whole text is needed.
import type { PageSegment } from './page-text.ts';
import { pageOfOffset } from './page-text.ts';

export interface TextPosition {
  node: Text;
  offset: number;
}

/** The block of each segment: the <pre>'s children, in order. */
function blockText(pre: HTMLElement, index: number): Text | null {
  const child = pre.children[index]?.firstChild;
  return child instanceof Text ? child : null;
}

/** The DOM position of a character offset; `atEnd` places a range's end after the previous char. */
export function positionOf(
  pre: HTMLElement,
  segments: readonly PageSegment[],
  offset: number,
  atEnd = false,
): TextPosition | null {
  const starts = segments.map((segment) => segment.start);
  const index = pageOfOffset(starts, atEnd ? Math.max(0, offset - 1) : offset);
  const segment = segments[index];
  const node = blockText(pre, index);
  if (!segment || !node) return null;
  return { node, offset: Math.min(Math.max(offset - segment.start, 0), node.length) };
}

export function domRange(
  pre: HTMLElement,
  segments: readonly PageSegment[],
  start: number,
  end: number,
): Range | null {
  const from = positionOf(pre, segments, start);
  const to = positionOf(pre, segments, end, true);
  if (!from || !to) return null;
  const range = document.createRange();
  range.setStart(from.node, from.offset);
  range.setEnd(to.node, to.offset);
  return range;
}

/** The character offset of a DOM position inside the <pre> (counts the text before it). */
export function offsetOf(pre: HTMLElement, container: Node, offset: number): number {
  const before = document.createRange();
  before.setStart(pre, 0);
  before.setEnd(container, offset);
  return before.toString().length;
}

/** The selection's range of the text, if the selection lies inside the <pre> and is not empty. */
export function selectedRange(pre: HTMLElement): { start: number; end: number } | null {
  const selection = document.getSelection();
  if (!selection || selection.rangeCount === 0 || selection.isCollapsed) return null;
  const range = selection.getRangeAt(0);
  if (!pre.contains(range.startContainer) || !pre.contains(range.endContainer)) return null;
  const start = offsetOf(pre, range.startContainer, range.startOffset);
  const end = offsetOf(pre, range.endContainer, range.endOffset);
  return end > start ? { start, end } : null;
}
