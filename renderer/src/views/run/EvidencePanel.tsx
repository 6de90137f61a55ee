// The run's final evidence spans on its papers: each span placed in a paper's text (evidence-spans),
// drawn by the Papers view's highlighter (PaperText, amber), gold spans in green when the question
// has them, and a link that opens the span in the Papers reader beside its PDF.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { PaperDetail } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import type { HighlightRange } from '../papers/highlight-tones.ts';
import { PaperText, type PaperTextHandle } from '../papers/PaperText.tsx';
import { papersHref } from '../papers/route.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { answerSpans, locateSpans, type LocatedSpan } from './evidence-spans.ts';

export interface EvidencePanelProps {
  set: string;
  paperIds: readonly string[];
  answer: unknown;
  /** Gold spans given by the caller; else those of the newest eval that scored `runId`. */
  gold?: readonly string[] | undefined;
  runId?: string | undefined;
}

const noGold: readonly string[] = [];

/** The answer's spans and the gold ones, placed in the run's papers once they have loaded. */
function useEvidence(
  set: string,
  paperIds: readonly string[],
  answer: unknown,
  givenGold: readonly string[] | undefined,
  runId: string | undefined,
) {
  const api = useApi();
  const evaluation = useEngineQuery(
    runId !== undefined && givenGold === undefined ? JSON.stringify(['evaluation', runId]) : null,
    async () => (await api.call('runs.evaluation', { runId: runId ?? '' })).result,
  );
  const scored = evaluation.status === 'ready' ? evaluation.value : null;
  const gold = useMemo(
    () => givenGold ?? scored?.gold.map((span) => span.text) ?? noGold,
    [givenGold, scored],
  );
  const spans = useMemo(() => answerSpans(answer), [answer]);
  const papers = useEngineQuery(JSON.stringify(['evidence', set, paperIds]), () =>
    Promise.all(paperIds.map((id) => api.call('papers.get', { set, id }))),
  );
  const located = useMemo(() => {
    if (papers.status !== 'ready') return null;
    return {
      predicted: locateSpans(spans, papers.value),
      gold: locateSpans(gold, papers.value),
    };
  }, [papers, spans, gold]);
  return { scored, gold, spans, papers, located };
}

export function EvidencePanel({
  set,
  paperIds,
  answer,
  gold: givenGold,
  runId,
}: EvidencePanelProps) {
  const { scored, gold, spans, papers, located } = useEvidence(
    set,
    paperIds,
    answer,
    givenGold,
    runId,
  );
  const [chosen, setChosen] = useState<string | null>(null);

  if (spans.length === 0) return null;
  if (papers.status === 'failed')
    return (
      <p className="run-failure" role="alert">
        The run&rsquo;s papers could not be opened: {papers.failure.name}: {papers.failure.message}
      </p>
    );
  if (!located || papers.status !== 'ready')
    return <p className="papers-muted">Placing the evidence…</p>;
  const firstPlaced = located.predicted.find((span) => span.paperId !== null)?.paperId ?? null;
  const paperId = chosen ?? firstPlaced ?? paperIds[0] ?? null;
  const paper = papers.value.find((entry) => entry.id === paperId);
  return (
    <section className="evidence-panel" data-testid="evidence-panel">
      <h3>Evidence ({spans.length} spans)</h3>
      <ol className="evidence-list">
        {located.predicted.map((span, index) => (
          <SpanRow
            key={index}
            span={span}
            set={set}
            onShow={() => {
              if (span.paperId !== null) setChosen(span.paperId);
            }}
          />
        ))}
      </ol>
      {scored && (
        <p className="papers-muted" data-testid="evidence-scores">
          Scored by eval {scored.evalId}: span F1 {scored.spanF1?.toFixed(2) ?? '—'}
          {scored.rubric !== null && ` · rubric ${scored.rubric.toFixed(2)}`}
          {scored.evidenceF1 !== null && ` · Evidence-F1 ${scored.evidenceF1.toFixed(2)}`}
        </p>
      )}
      {gold.length > 0 && (
        <p className="papers-muted" data-testid="evidence-gold">
          Gold: {located.gold.filter((span) => span.paperId !== null).length} of {gold.length} spans
          placed (green).
        </p>
      )}
      {paper && <EvidenceText paper={paper} predicted={located.predicted} gold={located.gold} />}
    </section>
  );
}

function SpanRow({ span, set, onShow }: { span: LocatedSpan; set: string; onShow: () => void }) {
  return (
    <li data-testid="evidence-span" data-placed={span.paperId !== null}>
      <q>{span.text.length > 160 ? `${span.text.slice(0, 159)}…` : span.text}</q>{' '}
      {span.paperId !== null ? (
        <>
          <button type="button" className="papers-link-button" onClick={onShow}>
            {span.paperId} · {span.start}–{span.end}
          </button>{' '}
          <Link
            className="papers-link"
            to={papersHref({
              set,
              paperId: span.paperId,
              hl: { start: span.start, end: span.end },
            })}
          >
            open beside the PDF
          </Link>
        </>
      ) : (
        <span className="run-failure">not found verbatim in the papers</span>
      )}
    </li>
  );
}

function EvidenceText({
  paper,
  predicted,
  gold,
}: {
  paper: PaperDetail;
  predicted: readonly LocatedSpan[];
  gold: readonly LocatedSpan[];
}) {
  const ranges = useMemo<HighlightRange[]>(
    () => [
      ...gold
        .filter((span) => span.paperId === paper.id)
        .map((span, index) => ({
          key: `gold-${String(index)}`,
          start: span.start,
          end: span.end,
          tone: 'green' as const,
        })),
      ...predicted
        .filter((span) => span.paperId === paper.id)
        .map((span, index) => ({
          key: `span-${String(index)}`,
          start: span.start,
          end: span.end,
          tone: 'amber' as const,
        })),
    ],
    [paper.id, predicted, gold],
  );
  const textRef = useRef<PaperTextHandle>(null);
  const firstSpan = ranges.find((range) => range.tone === 'amber')?.start;
  useEffect(() => {
    if (firstSpan !== undefined) textRef.current?.scrollToOffset(firstSpan);
  }, [firstSpan]);
  return (
    <div className="evidence-text" data-testid="evidence-text" data-paper={paper.id}>
      <p className="papers-muted">
        {paper.title} ({paper.id})
      </p>
      <PaperText
        ref={textRef}
        text={paper.fullText}
        pageStarts={paper.pageStarts}
        ranges={ranges}
        onSelectRange={() => undefined}
      />
    </div>
  );
}
