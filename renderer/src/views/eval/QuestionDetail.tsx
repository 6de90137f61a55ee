// One question of an eval: its answer against the gold evidence on each paper it touches, drawn
// with the Papers view's text highlighter in three tones (hit, missed, extra), the spans nobody
// could locate, the judge's verdict, and a link to the run's trajectory.
import { Link } from 'react-router';
import type { EvalResult, LocatedSpan } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { PaperText } from '../papers/PaperText.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { overlayTones, papersTouched, spanOverlay, type OverlayKind } from './span-overlay.ts';

export interface QuestionDetailProps {
  result: EvalResult;
  paperId: string | undefined;
  onSelectPaper: (paperId: string) => void;
}

const labels: Record<OverlayKind, string> = {
  hit: 'hit (predicted and gold)',
  missed: 'missed (gold only)',
  extra: 'extra (predicted only)',
};

function SpanList({ title, spans }: { title: string; spans: readonly LocatedSpan[] }) {
  return (
    <details className="eval-spans" open={spans.some((span) => !span.location)}>
      <summary>
        {title}: {spans.length} ({spans.filter((span) => !span.location).length} unlocated)
      </summary>
      <ol>
        {spans.map((span, index) => (
          <li
            key={index}
            className={span.location ? undefined : 'papers-bad'}
            data-testid="eval-span"
          >
            <span className="papers-muted">
              {span.location
                ? `${span.location.paperId} · ${span.location.method}${span.location.method === 'approximate' ? ` ${span.location.similarity.toFixed(2)}` : ''}`
                : 'unlocated'}
            </span>{' '}
            {span.text.length > 300 ? `${span.text.slice(0, 300)}…` : span.text}
          </li>
        ))}
      </ol>
    </details>
  );
}

function PaperOverlay({
  set,
  paperId,
  result,
}: {
  set: string;
  paperId: string;
  result: EvalResult;
}) {
  const api = useApi();
  const paper = useEngineQuery(JSON.stringify(['eval-paper', set, paperId]), () =>
    api.call('papers.get', { set, id: paperId }),
  );
  const overlay = spanOverlay(result.spans, result.gold, paperId);
  if (paper.status === 'failed')
    return (
      <p className="papers-failure" role="alert">
        {paper.failure.name}: {paper.failure.message}
      </p>
    );
  if (paper.status !== 'ready') return <p className="papers-muted">Opening {paperId}…</p>;
  return (
    <div className="eval-paper" data-testid="eval-paper" data-paper={paperId}>
      <ul className="eval-legend" data-testid="eval-legend">
        {(['hit', 'missed', 'extra'] as const).map((kind) => (
          <li key={kind} data-kind={kind} data-chars={overlay.chars[kind]}>
            <span className={`eval-swatch tone-${overlayTones[kind]}`} /> {labels[kind]}:{' '}
            {overlay.chars[kind].toLocaleString()} characters
          </li>
        ))}
      </ul>
      <PaperText
        text={paper.value.contextText}
        pageStarts={[]}
        ranges={overlay.ranges}
        onSelectRange={() => undefined}
      />
    </div>
  );
}

export function QuestionDetail({ result, paperId, onSelectPaper }: QuestionDetailProps) {
  const touched = papersTouched(result.spans, result.gold);
  const shown = paperId && touched.includes(paperId) ? paperId : touched[0];
  return (
    <section
      className="eval-question"
      data-testid="eval-question"
      data-question={result.questionId}
    >
      <h3>{result.question}</h3>
      <p className="papers-muted">
        {result.status}
        {result.error ? ` · ${result.error.name}: ${result.error.message}` : ''}
        {result.runId && (
          <>
            {' · '}
            <Link to={`/run?run=${encodeURIComponent(result.runId)}`} data-testid="open-run">
              open the trajectory
            </Link>
          </>
        )}
      </p>
      {result.judge && (
        <p className="eval-judge" data-testid="eval-judge-verdict">
          Judge: precision {result.judge.precision ?? '–'}, recall {result.judge.recall ?? '–'}
          {result.judge.status === 'failed'
            ? ` · failed: ${result.judge.failures.at(-1) ?? ''}`
            : ` · ${result.judge.reasoning}`}
        </p>
      )}
      <SpanList title="Predicted spans" spans={result.spans} />
      <SpanList title="Gold spans" spans={result.gold} />
      {touched.length > 0 && (
        <nav className="set-tabs" aria-label="Papers of this question">
          {touched.map((id) => (
            <button
              key={id}
              type="button"
              className={`set-tab${id === shown ? ' selected' : ''}`}
              onClick={() => {
                onSelectPaper(id);
              }}
              data-testid="eval-paper-tab"
            >
              {id}
            </button>
          ))}
        </nav>
      )}
      {shown && <PaperOverlay key={shown} set={result.set} paperId={shown} result={result} />}
    </section>
  );
}
