// One question of a dataset, edited on the paper itself: its text, approval and split; its gold
// spans listed (each removable) and highlighted on each of its papers, in the extracted text and on
// the PDF; selecting text in the reader offers it as a new gold span. Every change goes through
// datasets.editQuestion, which marks a change of text or spans as made by hand.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { DatasetQuestion, GoldSpan, PaperDetail } from '../../../../app/api/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { FailureLine } from '../papers/FailureLine.tsx';
import type { HighlightRange } from '../papers/highlight-tones.ts';
import { PaperText, type PaperTextHandle } from '../papers/PaperText.tsx';
import { HighlightedPdf, type HighlightedPdfHandle } from '../papers/pdf/HighlightedPdf.tsx';
import type { CharRange } from '../papers/route.ts';
import { useEngineAction } from '../papers/use-engine-action.ts';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { usePaperHighlight } from '../papers/usePaperHighlight.ts';
import {
  goldFromSelection,
  goldRanges,
  questionPapers,
  withGoldSpan,
  withoutGoldSpan,
} from './gold-spans.ts';

type Edit = Partial<Pick<DatasetQuestion, 'question' | 'gold' | 'status' | 'split'>>;

function useQuestionEdits(dataset: string, question: DatasetQuestion, onChanged: () => void) {
  const api = useApi();
  const { failure, run, fail } = useEngineAction();
  const edit = (change: Edit) => {
    run(
      () => api.call('datasets.editQuestion', { dataset, id: question.id, ...change }),
      onChanged,
    );
  };
  const remove = () => {
    run(() => api.call('datasets.deleteQuestion', { dataset, id: question.id }), onChanged);
  };
  return { edit, remove, failure, fail };
}

export function QuestionEditor(props: {
  dataset: string;
  question: DatasetQuestion;
  paperId: string | null;
  onPaper: (paperId: string) => void;
  onChanged: () => void;
}) {
  const { question } = props;
  const { edit, remove, failure, fail } = useQuestionEdits(
    props.dataset,
    question,
    props.onChanged,
  );
  const [text, setText] = useState(question.question);
  useEffect(() => {
    setText(question.question);
  }, [question.question]);
  const papers = questionPapers(question);
  const shown = props.paperId && papers.includes(props.paperId) ? props.paperId : papers[0];
  return (
    <section
      className="datasets-question"
      data-testid="question-editor"
      data-id={question.id}
      data-status={question.status}
    >
      <form
        className="datasets-question-text"
        onSubmit={(e) => {
          e.preventDefault();
          if (text.trim() !== '' && text !== question.question) edit({ question: text.trim() });
        }}
      >
        <textarea
          value={text}
          rows={2}
          onChange={(e) => {
            setText(e.target.value);
          }}
          aria-label="question"
          data-testid="question-text"
        />
        <button className="button" type="submit" disabled={text === question.question}>
          Save
        </button>
      </form>
      <div className="datasets-question-actions">
        <button
          className="button"
          type="button"
          aria-pressed={question.status === 'approved'}
          onClick={() => {
            edit({ status: question.status === 'approved' ? 'pending' : 'approved' });
          }}
          data-testid="question-approve"
        >
          Approve
        </button>
        <button
          className="button"
          type="button"
          aria-pressed={question.status === 'rejected'}
          onClick={() => {
            edit({ status: question.status === 'rejected' ? 'pending' : 'rejected' });
          }}
          data-testid="question-reject"
        >
          Reject
        </button>
        <label>
          split{' '}
          <select
            value={question.split}
            onChange={(e) => {
              edit({ split: e.target.value as DatasetQuestion['split'] });
            }}
            data-testid="question-split"
          >
            <option value="train">train</option>
            <option value="validation">validation</option>
          </select>
        </label>
        <button className="papers-link-button" type="button" onClick={remove}>
          Delete question
        </button>
        <span className="papers-muted">
          {provenanceLine(question)} · group {question.group ?? '–'}
        </span>
      </div>
      <FailureLine failure={failure} testId="question-failure" />
      <GoldList
        gold={question.gold}
        onRemove={(index) => {
          edit({ gold: withoutGoldSpan(question.gold, index) });
        }}
      />
      <nav className="set-tabs" aria-label="Papers of this question">
        {papers.map((id) => (
          <button
            key={id}
            type="button"
            className={`set-tab${id === shown ? ' selected' : ''}`}
            onClick={() => {
              props.onPaper(id);
            }}
            data-testid="question-paper-tab"
          >
            {id} ({question.gold.filter((g) => g.paperId === id).length} gold)
          </button>
        ))}
      </nav>
      {shown && (
        <GoldReader
          key={shown}
          set={question.set}
          paperId={shown}
          gold={question.gold}
          onAdd={(range, paper) => {
            try {
              edit({ gold: withGoldSpan(question.gold, goldFromSelection(paper, range)) });
            } catch (error) {
              fail(error);
            }
          }}
        />
      )}
    </section>
  );
}

function provenanceLine(q: DatasetQuestion): string {
  const when = (at: number) => new Date(at).toLocaleString();
  const p = q.provenance;
  const first =
    p.kind === 'teacher'
      ? `written by ${p.teacher} (${p.prompt}) ${when(p.at)}`
      : p.kind === 'imported'
        ? `imported from ${p.format} ${when(p.at)}`
        : `written by hand ${when(p.at)}`;
  return q.editedAt === null ? first : `${first}; edited by hand ${when(q.editedAt)}`;
}

function GoldList(props: { gold: readonly GoldSpan[]; onRemove: (index: number) => void }) {
  return (
    <ol className="datasets-gold" data-testid="gold-spans">
      {props.gold.length === 0 && (
        <li className="papers-muted">No gold spans: select the passage on a paper below.</li>
      )}
      {props.gold.map((span, index) => (
        <li key={`${span.paperId}-${String(span.start)}`} data-testid="gold-span">
          <span className="papers-muted">
            {span.paperId} · {span.start}–{span.end}
          </span>{' '}
          {span.text.length > 240 ? `${span.text.slice(0, 240)}…` : span.text}{' '}
          <button
            type="button"
            className="papers-link-button"
            onClick={() => {
              props.onRemove(index);
            }}
            data-testid="gold-remove"
          >
            remove
          </button>
        </li>
      ))}
    </ol>
  );
}

/** A paper with the question's gold spans on its text and PDF, and the user's selection. */
function GoldReader(props: {
  set: string;
  paperId: string;
  gold: readonly GoldSpan[];
  onAdd: (range: CharRange, paper: PaperDetail) => void;
}) {
  const api = useApi();
  const detail = useEngineQuery(JSON.stringify(['dataset-paper', props.set, props.paperId]), () =>
    api.call('papers.get', { set: props.set, id: props.paperId }),
  );
  if (detail.status === 'failed')
    return (
      <p className="papers-failure" role="alert">
        {props.paperId} could not be opened. {detail.failure.name}: {detail.failure.message}
      </p>
    );
  if (detail.status !== 'ready') return <p className="papers-muted">Opening {props.paperId}…</p>;
  return <GoldReaderBody {...props} paper={detail.value} />;
}

function GoldReaderBody(props: {
  set: string;
  paper: PaperDetail;
  gold: readonly GoldSpan[];
  onAdd: (range: CharRange, paper: PaperDetail) => void;
}) {
  const { paper } = props;
  const [selection, setSelection] = useState<CharRange | null>(null);
  const ranges = useMemo<HighlightRange[]>(
    () => [
      ...goldRanges(props.gold, paper),
      ...(selection ? [{ key: 'selection', ...selection, tone: 'amber' as const }] : []),
    ],
    [props.gold, paper, selection],
  );
  const { highlights, failure } = usePaperHighlight(props.set, paper.id, ranges, paper.hasPdf);
  const textRef = useRef<PaperTextHandle>(null);
  const pdfRef = useRef<HighlightedPdfHandle>(null);
  const firstGold = ranges.find((r) => r.key.startsWith('gold-'));
  const firstBox = highlights.find((h) => h.key === firstGold?.key)?.boxes[0];
  useEffect(() => {
    if (firstGold) textRef.current?.scrollToOffset(firstGold.start);
    // Once per paper: later spans are added where the user is reading.
  }, [paper.id]);
  useEffect(() => {
    if (firstBox) pdfRef.current?.revealBox(firstBox);
  }, [firstBox]);
  return (
    <div className="datasets-reader" data-testid="gold-reader" data-paper={paper.id}>
      <div className="paper-focus-bar" aria-live="polite">
        {selection ? (
          <>
            <span data-testid="gold-selection">
              Selected {selection.start.toLocaleString()}–{selection.end.toLocaleString()}:{' '}
              {JSON.stringify(paper.fullText.slice(selection.start, selection.end).slice(0, 80))}
            </span>
            <button
              className="button"
              type="button"
              onClick={() => {
                props.onAdd(selection, paper);
                setSelection(null);
              }}
              data-testid="gold-add"
            >
              Add as gold span
            </button>
            <button
              className="papers-link-button"
              type="button"
              onClick={() => {
                setSelection(null);
              }}
            >
              Clear
            </button>
          </>
        ) : (
          <span className="papers-muted">
            Gold spans are green. Select a passage in the text to add it as a gold span.
          </span>
        )}
        {failure && (
          <span className="papers-failure" role="alert">
            {failure.name}: {failure.message}
          </span>
        )}
      </div>
      <div className={`datasets-reader-body${paper.hasPdf ? '' : ' text-only'}`}>
        <PaperText
          ref={textRef}
          text={paper.fullText}
          pageStarts={paper.pageStarts}
          ranges={ranges}
          onSelectRange={setSelection}
        />
        {paper.hasPdf ? (
          <HighlightedPdf ref={pdfRef} set={props.set} paperId={paper.id} highlights={highlights} />
        ) : (
          <p className="paper-no-pdf" data-testid="paper-no-pdf">
            This paper came from QASPER JSON: there is no PDF, only its text.
          </p>
        )}
      </div>
    </div>
  );
}
