// The extracted full text, one block per PDF page, with highlighted ranges drawn by the CSS Custom
// Highlight API (no DOM changes, so a live selection survives). Selecting text reports its range;
// user scrolls report the page of the first visible character. Only one PaperText is mounted at a
// time: the highlight names are document-wide.
import {
  useEffect,
  useEffectEvent,
  useImperativeHandle,
  useMemo,
  useRef,
  type Ref,
  type RefObject,
} from 'react';
import { highlightTones, textHighlightName, type HighlightRange } from './highlight-tones.ts';
import { pageSegments, type PageSegment } from './page-text.ts';
import type { CharRange } from './route.ts';
import { domRange, selectedRange } from './text-ranges.ts';
import { useUserScroll } from './useUserScroll.ts';

export interface PaperTextHandle {
  /** Scrolls so the character at `offset` sits near the top third of the panel. */
  scrollToOffset: (offset: number) => void;
  scrollToPage: (page: number) => void;
}

export interface PaperTextProps {
  text: string;
  pageStarts: readonly number[];
  ranges: readonly HighlightRange[];
  onSelectRange: (range: CharRange) => void;
  onUserPageChange?: (page: number) => void;
  ref?: Ref<PaperTextHandle>;
}

const selectionSettleMs = 200;

export function PaperText({
  text,
  pageStarts,
  ranges,
  onSelectRange,
  onUserPageChange,
  ref,
}: PaperTextProps) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const preRef = useRef<HTMLPreElement>(null);
  const segments = useMemo(() => pageSegments(text.length, pageStarts), [text, pageStarts]);
  const showsPages = pageStarts.length > 1;

  usePanelScrolling({
    scrollerRef,
    preRef,
    segments,
    textLength: text.length,
    onUserPageChange,
    ref,
  });
  useTextHighlights(preRef, ranges, segments);
  useSettledSelection(preRef, onSelectRange);

  return (
    <div ref={scrollerRef} className="paper-text-scroller" data-testid="paper-text-panel">
      <pre ref={preRef} className="paper-text" data-testid="paper-text">
        {segments.map((segment) => (
          <span
            key={segment.page}
            className="paper-text-page"
            data-page={segment.page}
            data-label={showsPages ? `Page ${String(segment.page + 1)}` : undefined}
          >
            {text.slice(segment.start, segment.end)}
          </span>
        ))}
      </pre>
    </div>
  );
}

// Highlights: one registry entry per tone, rebuilt when the ranges or the text change.
function useTextHighlights(
  preRef: RefObject<HTMLPreElement | null>,
  ranges: readonly HighlightRange[],
  segments: readonly PageSegment[],
) {
  useEffect(() => {
    const pre = preRef.current;
    if (!pre || typeof CSS === 'undefined' || !('highlights' in CSS)) return;
    const names: string[] = [];
    for (const tone of highlightTones) {
      const domRanges = ranges
        .filter((range) => range.tone === tone)
        .map((range) => domRange(pre, segments, range.start, range.end))
        .filter((range) => range !== null);
      if (domRanges.length === 0) continue;
      const name = textHighlightName(tone);
      CSS.highlights.set(name, new Highlight(...domRanges));
      names.push(name);
    }
    return () => {
      for (const name of names) CSS.highlights.delete(name);
    };
  }, [preRef, ranges, segments]);
}

// Selection: reported once it settles (pointer up, or a pause in keyboard selection).
function useSettledSelection(
  preRef: RefObject<HTMLPreElement | null>,
  onSelectRange: (range: CharRange) => void,
) {
  const reportSelection = useEffectEvent(onSelectRange);
  useEffect(() => {
    const pre = preRef.current;
    if (!pre) return;
    let timer = 0;
    let pointerDown = false;
    const check = () => {
      window.clearTimeout(timer);
      const range = selectedRange(pre);
      if (range) reportSelection(range);
    };
    const onSelectionChange = () => {
      window.clearTimeout(timer);
      if (!pointerDown) timer = window.setTimeout(check, selectionSettleMs);
    };
    const onPointerDown = () => {
      pointerDown = true;
    };
    const onPointerUp = () => {
      if (!pointerDown) return;
      pointerDown = false;
      check();
    };
    document.addEventListener('selectionchange', onSelectionChange);
    pre.addEventListener('pointerdown', onPointerDown);
    window.addEventListener('pointerup', onPointerUp);
    return () => {
      window.clearTimeout(timer);
      document.removeEventListener('selectionchange', onSelectionChange);
      pre.removeEventListener('pointerdown', onPointerDown);
      window.removeEventListener('pointerup', onPointerUp);
    };
  }, [preRef]);
}

// User scrolls report the page at the top; the handle scrolls to an offset or a page.
function usePanelScrolling({
  scrollerRef,
  preRef,
  segments,
  textLength,
  onUserPageChange,
  ref,
}: {
  scrollerRef: RefObject<HTMLDivElement | null>;
  preRef: RefObject<HTMLPreElement | null>;
  segments: readonly PageSegment[];
  textLength: number;
  onUserPageChange: ((page: number) => void) | undefined;
  ref: Ref<PaperTextHandle> | undefined;
}) {
  const pageAtTop = (element: HTMLElement): number => {
    const blocks = preRef.current?.children ?? [];
    let found = 0;
    for (let index = 0; index < blocks.length; index++) {
      const block = blocks[index];
      if (block instanceof HTMLElement && block.offsetTop <= element.scrollTop + 1) found = index;
    }
    return segments[found]?.page ?? 0;
  };

  const { scrollTo } = useUserScroll(scrollerRef, (element) => {
    onUserPageChange?.(pageAtTop(element));
  });

  useImperativeHandle(
    ref,
    () => ({
      scrollToOffset: (offset) => {
        const scroller = scrollerRef.current;
        const pre = preRef.current;
        if (!scroller || !pre) return;
        const range = domRange(pre, segments, offset, Math.min(offset + 1, textLength));
        if (!range) return;
        const rect = range.getBoundingClientRect();
        const top = rect.top - scroller.getBoundingClientRect().top + scroller.scrollTop;
        scrollTo(top - scroller.clientHeight / 3);
      },
      scrollToPage: (page) => {
        const block = preRef.current?.children[page];
        if (block instanceof HTMLElement) scrollTo(block.offsetTop);
      },
    }),
    [segments, textLength, scrollTo],
  );
}
