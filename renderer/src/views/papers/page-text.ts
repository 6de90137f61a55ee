// A paper's full text cut at its page starts, so the text panel can show one block per PDF page
// and both panels can agree on "which page" without measuring characters.

export interface PageSegment {
  /** 0-based page index, as the PDF and the highlight boxes count them. */
  page: number;
  start: number;
  end: number;
}

/**
 * One segment per page, covering [0, textLength) without gaps; text before the first page start (if
 * any) belongs to page 0. A page with no text gets an empty segment.
 */
export function pageSegments(textLength: number, pageStarts: readonly number[]): PageSegment[] {
  if (pageStarts.length === 0) return [{ page: 0, start: 0, end: textLength }];
  return pageStarts.map((start, page) => ({
    page,
    start: page === 0 ? 0 : Math.min(start, textLength),
    end: Math.min(pageStarts[page + 1] ?? textLength, textLength),
  }));
}

/** The page holding the character at `offset`: the last page that starts at or before it. */
export function pageOfOffset(pageStarts: readonly number[], offset: number): number {
  let low = 0;
  let high = pageStarts.length - 1;
  let found = 0;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((pageStarts[mid] ?? 0) <= offset) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}
