// Two runs side by side: their facts and scores, both trees, their turns aligned by agent and turn
// (differences marked), and their final spans (shared, or only in one).
import { useMemo } from 'react';
import { Link } from 'react-router';
import type { RunEvent, RunSummaryPayload } from '../../../../app/api/index.ts';
import type { TurnView } from '../../../../app/run-log/index.ts';
import { useApi } from '../../api/ApiContext.tsx';
import { useEngineQuery } from '../papers/use-engine-query.ts';
import { answerText, cut } from '../../../../app/run-log/index.ts';
import { formatCost, formatDuration, formatTokens } from '../run/agent-summary.ts';
import { AgentTree } from '../run/AgentTree.tsx';
import { runHref } from '../run/route.ts';
import { RunStore } from '../run/run-store.ts';
import { alignTurns, compareSpans } from './compare.ts';
import { countOf } from '../../format/count.ts';

interface LoadedRun {
  summary: RunSummaryPayload;
  store: RunStore;
}

function loaded(summary: RunSummaryPayload, events: RunEvent[]): LoadedRun {
  const store = new RunStore(() => undefined);
  store.push(...events);
  store.flush();
  return { summary, store };
}

export function CompareRuns({ pair, onClose }: { pair: [string, string]; onClose: () => void }) {
  const api = useApi();
  const runs = useEngineQuery(JSON.stringify(['compare', pair]), async () =>
    Promise.all(
      pair.map(async (runId) => {
        const { run, events } = await api.call('runs.events', { runId });
        return loaded(run, events);
      }),
    ),
  );
  if (runs.status === 'failed')
    return (
      <p className="run-failure" role="alert">
        These runs could not be compared. {runs.failure.name}: {runs.failure.message}
      </p>
    );
  if (runs.status !== 'ready') return <p className="papers-muted">Loading both runs…</p>;
  const [left, right] = runs.value;
  if (!left || !right) return null;
  return <Comparison left={left} right={right} onClose={onClose} />;
}

function Comparison({
  left,
  right,
  onClose,
}: {
  left: LoadedRun;
  right: LoadedRun;
  onClose: () => void;
}) {
  const leftView = left.store.getSnapshot().view;
  const rightView = right.store.getSnapshot().view;
  const rows = useMemo(() => alignTurns(leftView, rightView), [leftView, rightView]);
  const spans = useMemo(
    () => compareSpans(leftView.answer, rightView.answer),
    [leftView, rightView],
  );
  const differing = rows.filter((row) => !row.same).length;
  return (
    <section className="runs-compare" data-testid="runs-comparison" aria-label="Compare two runs">
      <header className="runs-compare-head">
        <h2>Compare</h2>
        <button type="button" className="run-button" data-testid="compare-close" onClick={onClose}>
          Close
        </button>
      </header>
      <div className="runs-compare-columns">
        {[left, right].map((run, index) => (
          <RunColumn key={run.summary.id} run={run} side={index === 0 ? 'left' : 'right'} />
        ))}
      </div>
      <h3>
        Turns aligned by agent and turn{' '}
        <span className="papers-muted" data-testid="compare-differing">
          {differing} of {rows.length} differ
        </span>
      </h3>
      <TurnsTable left={left} right={right} rows={rows} />
      <h3>Final spans</h3>
      <div className="runs-compare-spans" data-testid="compare-spans">
        <SpanList title="In both" spans={spans.shared} testId="spans-shared" />
        <SpanList title="Only left" spans={spans.onlyLeft} testId="spans-left" />
        <SpanList title="Only right" spans={spans.onlyRight} testId="spans-right" />
      </div>
    </section>
  );
}

function TurnsTable({
  left,
  right,
  rows,
}: {
  left: LoadedRun;
  right: LoadedRun;
  rows: ReturnType<typeof alignTurns>;
}) {
  return (
    <table className="runs-compare-turns" data-testid="compare-turns">
      <thead>
        <tr>
          <th>Agent · turn</th>
          <th>{left.summary.id.slice(0, 8)}</th>
          <th>{right.summary.id.slice(0, 8)}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr
            key={`${row.agentId}#${String(row.turn)}`}
            className={row.same ? undefined : 'differs'}
            data-testid="compare-row"
            data-place={`${row.agentId}#${String(row.turn)}`}
            data-same={row.same}
          >
            <td>
              {row.agentId} · {row.turn}
            </td>
            <td>
              <TurnCell runId={left.summary.id} agentId={row.agentId} turn={row.left} />
            </td>
            <td>
              <TurnCell runId={right.summary.id} agentId={row.agentId} turn={row.right} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RunColumn({ run, side }: { run: LoadedRun; side: 'left' | 'right' }) {
  const snapshot = run.store.getSnapshot();
  const { summary } = run;
  return (
    <div className="runs-compare-column" data-testid={`compare-${side}`} data-run={summary.id}>
      <Link to={runHref({ runId: summary.id })} className="papers-link">
        {summary.question || summary.id}
      </Link>
      <p className="papers-muted">
        <span className={`state-pill run-${summary.status}`}>{summary.status}</span> {summary.model}{' '}
        · score {summary.score === null ? '—' : summary.score.toFixed(2)} ·{' '}
        {countOf(summary.agents, 'agent')} · {countOf(summary.turns, 'turn')} ·{' '}
        {formatTokens(summary.inputTokens + summary.outputTokens)} tokens ·{' '}
        {formatCost(summary.costUsd)}
        {summary.finishedAt !== null &&
          ` · ${formatDuration(summary.finishedAt - summary.createdAt)}`}
      </p>
      <p className="inspector-answer" data-testid={`compare-${side}-answer`}>
        {cut(answerText(snapshot.view.answer), 400)}
      </p>
      <div className="runs-compare-tree">
        <AgentTree
          snapshot={snapshot}
          selectedId={undefined}
          matches={new Set()}
          now={snapshot.view.finishedAt ?? 0}
          onSelect={() => undefined}
        />
      </div>
    </div>
  );
}

function TurnCell({
  runId,
  agentId,
  turn,
}: {
  runId: string;
  agentId: string;
  turn: TurnView | null;
}) {
  if (!turn) return <span className="papers-muted">—</span>;
  const code = turn.code.map((block) => block.code).join('\n');
  const output = turn.code.map((block) => block.stdout + block.stderr).join('\n');
  return (
    <div className="compare-cell">
      <Link to={runHref({ runId, agentId, turn: turn.turn })} className="papers-link">
        open
      </Link>
      <pre className="turn-pre">{code.length > 400 ? `${code.slice(0, 399)}…` : code}</pre>
      {output !== '' && (
        <pre className="turn-pre compare-output">
          {output.length > 200 ? `${output.slice(0, 199)}…` : output}
        </pre>
      )}
    </div>
  );
}

function SpanList({ title, spans, testId }: { title: string; spans: string[]; testId: string }) {
  return (
    <div>
      <h4>
        {title} ({spans.length})
      </h4>
      <ul data-testid={testId}>
        {spans.map((span, index) => (
          <li key={index}>{span.length > 160 ? `${span.slice(0, 159)}…` : span}</li>
        ))}
      </ul>
    </div>
  );
}
