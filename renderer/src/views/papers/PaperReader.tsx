// One paper: the section outline, the extracted text and the PDF side by side, scrolled in step by
// page, with one highlighted range (from ?hl= or a selection in the text) shown in both.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { HighlightBox, PaperDetail, Section } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import type { Failure } from './failure.ts';
import type { HighlightRange } from './highlight-tones.ts';
import { pageOfOffset } from './page-text.ts';
import { PaperText, type PaperTextHandle } from './PaperText.tsx';
import { HighlightedPdf, type HighlightedPdfHandle } from './pdf/HighlightedPdf.tsx';
import { loadPdfjs } from './pdf/pdfjs.ts';
import { formatCharRange, papersHref, type CharRange } from './route.ts';
import { engineName, ReadAgain } from './ReadAgain.tsx';
import { SectionOutline } from './SectionOutline.tsx';
import { useEngineQuery } from './use-engine-query.ts';
import { usePaperHighlight } from './usePaperHighlight.ts';

export interface PaperReaderProps {
  set: string;
  paperId: string;
  /** The range to highlight and scroll to on open (the link's ?hl=). */
  hl: CharRange | undefined;
}

export function PaperReader({ set, paperId, hl }: PaperReaderProps) {
  const api = useApi();
  // Reloaded when sets change: a paper read again (ReadAgain) comes back with its new text.
  const detail = useEngineQuery(
    JSON.stringify(['paper', set, paperId]),
    () => api.call('papers.get', { set, id: paperId }),
    { refreshOn: 'papers.setsChanged' },
  );
  useEffect(() => {
    // Start fetching pdf.js while the paper's text loads. A failure here is not lost: the PDF
    // panel's own load retries it and shows the error.
    loadPdfjs().catch(() => undefined);
  }, []);

  return (
    <article className="paper-reader" data-testid="paper-reader" data-paper={paperId}>
      <header className="paper-reader-header">
        <Link to={papersHref({ set })} className="papers-back" data-testid="reader-back">
          ← {set}
        </Link>
        {detail.status === 'ready' && (
          <>
            <h1 className="paper-title" data-testid="paper-title">
              {detail.value.title}
            </h1>
            <p className="papers-muted paper-meta" data-testid="paper-meta">
              {paperMeta(detail.value)}
            </p>
            <ReadAgain set={set} paper={detail.value} />
          </>
        )}
      </header>
      {detail.status === 'failed' ? (
        <p className="papers-failure" role="alert">
          This paper could not be opened. {detail.failure.name}: {detail.failure.message}
        </p>
      ) : detail.status === 'ready' ? (
        <ReaderBody set={set} paper={detail.value} hl={hl} />
      ) : (
        <p className="papers-muted">Opening the paper…</p>
      )}
    </article>
  );
}

function paperMeta(paper: PaperDetail): string {
  const parts = [
    paper.id,
    paper.authors.length > 0
      ? paper.authors.slice(0, 4).join(', ') + (paper.authors.length > 4 ? ' et al.' : '')
      : null,
    paper.hasPdf ? `${String(paper.pages)} pages` : null,
    `${paper.words.toLocaleString()} words`,
    paper.hasPdf ? `read by ${engineName(paper.engine)}` : null,
    paper.hasPdf ? null : 'QASPER (text only)',
  ];
  return parts.filter((part) => part !== null).join(' · ');
}

interface Focus {
  range: CharRange;
  /** Scroll both panels to it (opened from a link), or leave them (selected by the user). */
  reveal: boolean;
}

// The highlighted range: the link's ?hl= (clipped to the text) until the user selects another.
function useReaderFocus(paper: PaperDetail, hl: CharRange | undefined) {
  const valid = (range: CharRange | undefined) =>
    range && range.start < paper.fullText.length
      ? { start: range.start, end: Math.min(range.end, paper.fullText.length) }
      : undefined;
  const linked = valid(hl);
  const linkedKey = linked ? formatCharRange(linked) : '';
  const [focus, setFocus] = useState<Focus | undefined>(linked && { range: linked, reveal: true });
  const [shownLink, setShownLink] = useState(linkedKey);
  if (shownLink !== linkedKey) {
    // A new ?hl= while the paper is open (a search hit): it replaces the highlight.
    setShownLink(linkedKey);
    setFocus(linked && { range: linked, reveal: true });
  }
  return [focus, setFocus] as const;
}

// The text and the PDF scroll in step by page, and to the focus when it is to be revealed.
function useLinkedPanels(
  paper: PaperDetail,
  focus: Focus | undefined,
  firstBox: HighlightBox | undefined,
) {
  const textRef = useRef<PaperTextHandle>(null);
  const pdfRef = useRef<HighlightedPdfHandle>(null);
  const lastPage = useRef({ text: -1, pdf: -1 });
  useEffect(() => {
    if (focus?.reveal) textRef.current?.scrollToOffset(focus.range.start);
  }, [focus]);
  useEffect(() => {
    if (firstBox) pdfRef.current?.revealBox(firstBox);
  }, [firstBox]);
  const openSection = (section: Section) => {
    textRef.current?.scrollToOffset(section.start);
    pdfRef.current?.scrollToPage(pageOfOffset(paper.pageStarts, section.start));
  };
  const onTextPage = (page: number) => {
    if (page === lastPage.current.text) return;
    lastPage.current = { text: page, pdf: page };
    pdfRef.current?.scrollToPage(page);
  };
  const onPdfPage = (page: number) => {
    if (page === lastPage.current.pdf) return;
    lastPage.current = { text: page, pdf: page };
    textRef.current?.scrollToPage(page);
  };
  return { textRef, pdfRef, openSection, onTextPage, onPdfPage };
}

function ReaderBody({
  set,
  paper,
  hl,
}: {
  set: string;
  paper: PaperDetail;
  hl: CharRange | undefined;
}) {
  const [focus, setFocus] = useReaderFocus(paper, hl);
  const ranges = useMemo<HighlightRange[]>(
    () => (focus ? [{ key: 'focus', ...focus.range, tone: 'amber' }] : []),
    [focus],
  );
  const { highlights, failure } = usePaperHighlight(set, paper.id, ranges, paper.hasPdf);
  const panels = useLinkedPanels(paper, focus, highlights[0]?.boxes[0]);
  const boxPages = [...new Set(highlights.flatMap((h) => h.boxes.map((box) => box.page + 1)))];
  return (
    <>
      <FocusBar
        set={set}
        paper={paper}
        focus={focus}
        boxPages={boxPages}
        failure={failure}
        onClear={() => {
          setFocus(undefined);
        }}
      />
      <div className={`paper-reader-body${paper.hasPdf ? '' : ' text-only'}`}>
        <SectionOutline sections={paper.sectionList} onOpen={panels.openSection} />
        <PaperText
          ref={panels.textRef}
          text={paper.fullText}
          pageStarts={paper.pageStarts}
          ranges={ranges}
          onSelectRange={(range) => {
            setFocus({ range, reveal: false });
          }}
          onUserPageChange={panels.onTextPage}
        />
        {paper.hasPdf ? (
          <HighlightedPdf
            ref={panels.pdfRef}
            set={set}
            paperId={paper.id}
            highlights={highlights}
            onUserPageChange={panels.onPdfPage}
          />
        ) : (
          <p className="paper-no-pdf" data-testid="paper-no-pdf">
            This paper came from QASPER JSON: there is no PDF, only its text.
          </p>
        )}
      </div>
    </>
  );
}

function FocusBar({
  set,
  paper,
  focus,
  boxPages,
  failure,
  onClear,
}: {
  set: string;
  paper: PaperDetail;
  focus: Focus | undefined;
  boxPages: readonly number[];
  failure: Failure | undefined;
  onClear: () => void;
}) {
  return (
    <div className="paper-focus-bar" data-testid="paper-focus" aria-live="polite">
      {focus ? (
        <>
          <span>
            Highlighted characters {focus.range.start.toLocaleString()}–
            {focus.range.end.toLocaleString()}
            {boxPages.length > 0 && ` on page ${boxPages.join(', ')}`}
          </span>
          <Link
            to={papersHref({ set, paperId: paper.id, hl: focus.range })}
            className="papers-link"
            replace
          >
            Link to this span
          </Link>
          <button type="button" className="papers-link-button" onClick={onClear}>
            Clear
          </button>
        </>
      ) : (
        <span className="papers-muted">
          {paper.hasPdf
            ? 'Select text in the middle panel to highlight it on the PDF.'
            : 'Select text to highlight it.'}
        </span>
      )}
      {failure && (
        <span className="papers-failure" role="alert">
          {failure.name}: {failure.message}
        </span>
      )}
    </div>
  );
}
