// A paper's PDF, drawn page by page as pages near the viewport, with highlight boxes over the pages
// (several spans, several tones). Reusable wherever a span must be shown on its PDF: the reader's
// selection, search hits, evidence spans. It reports user scrolls by page and can be scrolled to a
// page or a box; a request made before the pages are laid out waits for them.
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type Ref,
  type RefObject,
} from 'react';
import type { HighlightBox } from '../../../../../app/api/index.ts';
import { useApi } from '../../../api/ApiContext.tsx';
import { bytesFromBase64 } from '../base64.ts';
import type { PaperHighlight } from '../highlight-tones.ts';
import { useEngineQuery } from '../use-engine-query.ts';
import { useUserScroll } from '../useUserScroll.ts';
import { PdfPage, type PageBox } from './PdfPage.tsx';
import type { PDFPageProxy } from './pdfjs.ts';
import { usePdfDocument } from './usePdfDocument.ts';

export interface HighlightedPdfHandle {
  scrollToPage: (page: number) => void;
  /** Scrolls the box into view unless it is already there. */
  revealBox: (box: HighlightBox) => void;
}

export interface HighlightedPdfProps {
  set: string;
  paperId: string;
  highlights: readonly PaperHighlight[];
  /** The page at the top of the view after the user scrolled it (not after app scrolls). */
  onUserPageChange?: (page: number) => void;
  ref?: Ref<HighlightedPdfHandle>;
}

const noPages: readonly PDFPageProxy[] = [];

type ScrollRequest = { kind: 'page'; page: number } | { kind: 'box'; box: HighlightBox };

/** The gap between pages and around them (papers.css's .pdf-scroller says the same). */
const pageGap = 16;
const minScale = 0.5;
const maxScale = 2.5;

// The PDF's bytes from the engine, its pages and their sizes at scale 1.
function usePdfPages(set: string, paperId: string) {
  const api = useApi();
  const bytes = useEngineQuery(JSON.stringify(['pdf', set, paperId]), async () => {
    const { dataBase64 } = await api.call('papers.pdf', { set, id: paperId });
    return bytesFromBase64(dataBase64);
  });
  const document = usePdfDocument(bytes.status === 'ready' ? bytes.value : undefined);
  const pages = document.status === 'ready' ? document.pages : noPages;
  const sizes = useMemo(
    () =>
      pages.map((page) => {
        const { width, height } = page.getViewport({ scale: 1 });
        return { width, height };
      }),
    [pages],
  );
  const widest = Math.max(1, ...sizes.map((size) => size.width));
  const failure =
    bytes.status === 'failed'
      ? bytes.failure
      : document.status === 'failed'
        ? document.failure
        : undefined;
  return { document, pages, sizes, widest, failure };
}

interface ScrollingOptions {
  scrollerRef: RefObject<HTMLDivElement | null>;
  frames: RefObject<(HTMLDivElement | null)[]>;
  scale: number;
  laidOut: boolean;
  onUserPageChange: ((page: number) => void) | undefined;
  ref: Ref<HighlightedPdfHandle> | undefined;
}

// User scrolls reported by page; the handle's scroll requests applied once the pages are laid out.
function usePdfScrolling({
  scrollerRef,
  frames,
  scale,
  laidOut,
  onUserPageChange,
  ref,
}: ScrollingOptions) {
  const pending = useRef<ScrollRequest | null>(null);
  const pageAt = useCallback(
    (top: number): number => {
      let found = 0;
      frames.current.forEach((frame, index) => {
        if (frame && frame.offsetTop <= top) found = index;
      });
      return found;
    },
    [frames],
  );

  const { scrollTo } = useUserScroll(scrollerRef, (element) => {
    onUserPageChange?.(pageAt(element.scrollTop + element.clientHeight / 4));
  });

  const apply = useCallback(
    (request: ScrollRequest) => {
      const scroller = scrollerRef.current;
      const page = request.kind === 'page' ? request.page : request.box.page;
      const frame = frames.current[page];
      if (!scroller || !frame) return;
      if (request.kind === 'page') {
        scrollTo(frame.offsetTop - pageGap);
        return;
      }
      const top = frame.offsetTop + request.box.y * scale;
      const bottom = top + request.box.height * scale;
      const visible =
        top >= scroller.scrollTop && bottom <= scroller.scrollTop + scroller.clientHeight;
      if (!visible) scrollTo(top - scroller.clientHeight / 3);
    },
    [scrollerRef, frames, scale, scrollTo],
  );
  usePdfHandle(ref, laidOut, apply, pending);
}

function usePdfHandle(
  ref: Ref<HighlightedPdfHandle> | undefined,
  laidOut: boolean,
  apply: (request: ScrollRequest) => void,
  pending: RefObject<ScrollRequest | null>,
) {
  const request = useCallback(
    (next: ScrollRequest) => {
      if (laidOut) apply(next);
      else pending.current = next;
    },
    [laidOut, apply, pending],
  );

  useImperativeHandle(
    ref,
    () => ({
      scrollToPage: (page) => {
        request({ kind: 'page', page });
      },
      revealBox: (box) => {
        request({ kind: 'box', box });
      },
    }),
    [request],
  );

  useLayoutEffect(() => {
    if (!laidOut || !pending.current) return;
    apply(pending.current);
    pending.current = null;
  }, [laidOut, apply, pending]);
}

// Rounded to 8 px, so a resize by a pixel or two does not redraw every page.
function useContentWidth(
  scrollerRef: RefObject<HTMLDivElement | null>,
  setWidth: (width: number) => void,
) {
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.round(entry.contentRect.width / 8) * 8);
    });
    observer.observe(scroller);
    return () => {
      observer.disconnect();
    };
  }, [scrollerRef, setWidth]);
}

/** The pages within a screen of the viewport: only those are drawn. */
function useNearPages(
  scrollerRef: RefObject<HTMLDivElement | null>,
  frames: RefObject<(HTMLDivElement | null)[]>,
  laidOut: boolean,
  pageCount: number,
): ReadonlySet<number> {
  const [near, setNear] = useState<ReadonlySet<number>>(new Set());
  useEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller || !laidOut) return;
    const observer = new IntersectionObserver(
      (entries) => {
        setNear((previous) => {
          const next = new Set(previous);
          for (const entry of entries) {
            const page = Number((entry.target as HTMLElement).dataset.page);
            if (entry.isIntersecting) next.add(page);
            else next.delete(page);
          }
          return next;
        });
      },
      { root: scroller, rootMargin: '100% 0px' },
    );
    for (const frame of frames.current) if (frame) observer.observe(frame);
    return () => {
      observer.disconnect();
    };
  }, [scrollerRef, frames, laidOut, pageCount]);
  return near;
}

function boxesByPage(highlights: readonly PaperHighlight[]): Map<number, PageBox[]> {
  const byPage = new Map<number, PageBox[]>();
  for (const { key, tone, boxes } of highlights) {
    for (const box of boxes) {
      const list = byPage.get(box.page) ?? [];
      list.push({ key, tone, box });
      byPage.set(box.page, list);
    }
  }
  return byPage;
}

export function HighlightedPdf({
  set,
  paperId,
  highlights,
  onUserPageChange,
  ref,
}: HighlightedPdfProps) {
  const { document, pages, sizes, widest, failure } = usePdfPages(set, paperId);
  const scrollerRef = useRef<HTMLDivElement>(null);
  const frames = useRef<(HTMLDivElement | null)[]>([]);
  const [width, setWidth] = useState(0);
  // `width` is the scroller's content box (inside its padding): pages fit it exactly.
  const scale = width > 0 ? clamp(width / widest, minScale, maxScale) : 0;
  const laidOut = pages.length > 0 && scale > 0;
  usePdfScrolling({ scrollerRef, frames, scale, laidOut, onUserPageChange, ref });
  useContentWidth(scrollerRef, setWidth);
  const near = useNearPages(scrollerRef, frames, laidOut, pages.length);
  const boxes = boxesByPage(highlights);

  return (
    <div ref={scrollerRef} className="pdf-scroller" data-testid="pdf-view" tabIndex={-1}>
      {failure ? (
        <p className="papers-failure" role="alert">
          The PDF could not be shown. {failure.name}: {failure.message}
        </p>
      ) : !laidOut || document.status !== 'ready' ? (
        <p className="papers-muted pdf-loading">Loading the PDF…</p>
      ) : (
        pages.map((page, index) => (
          <PdfPage
            key={index}
            pdfjs={document.pdfjs}
            page={page}
            index={index}
            scale={scale}
            size={sizes[index] ?? { width: widest, height: widest * 1.3 }}
            near={near.has(index)}
            boxes={boxes.get(index) ?? []}
            frameRef={(frame) => {
              frames.current[index] = frame;
            }}
          />
        ))
      )}
    </div>
  );
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
