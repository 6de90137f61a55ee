// The selected agent: its task, state and answer, copy of its subtree (JSON or Markdown), its turns
// on a timeline (placed by start time, sized by duration) and the selected turn in full.
import { useState } from 'react';
import {
  subtreeJson,
  subtreeMarkdown,
  type AgentNode,
  type RunView,
  type TurnView,
  answerText,
} from '../../../../app/run-log/index.ts';
import { formatCost, formatDuration, formatTokens } from './agent-summary.ts';
import { TurnDetail } from './TurnDetail.tsx';

/** A turn chip's least width (run.css, .turn-timeline li). */
const chipMinPx = 22;

export interface TurnInspectorProps {
  view: RunView;
  agent: AgentNode;
  turn: number | undefined;
  now: number;
  onSelectTurn: (turn: number) => void;
  onOpenAgent: (agentId: string) => void;
  onFork?: ((agent: AgentNode, turn: TurnView) => void) | undefined;
}

function turnEnd(turn: TurnView, now: number): number {
  const model = turn.latencyMs ?? Math.max(0, now - turn.startedAt);
  const code = turn.code.reduce((sum, block) => sum + (block.durationMs ?? 0), 0);
  return turn.startedAt + model + code;
}

export function TurnInspector(props: TurnInspectorProps) {
  const { view, agent, turn, now, onSelectTurn, onOpenAgent, onFork } = props;
  const selected = agent.turns.find((entry) => entry.turn === turn) ?? agent.turns.at(-1);
  return (
    <aside className="turn-inspector" data-testid="turn-inspector" data-agent={agent.id}>
      <header className="inspector-head">
        <AgentFacts agent={agent} now={now} onOpenAgent={onOpenAgent} />
        <CopySubtree view={view} agentId={agent.id} />
      </header>
      <TurnTimeline agent={agent} now={now} selected={selected} onSelectTurn={onSelectTurn} />
      {selected ? (
        <TurnDetail
          key={`${agent.id}/${String(selected.turn)}`}
          view={view}
          agentStartedAt={agent.startedAt}
          turn={selected}
          onOpenAgent={onOpenAgent}
          onFork={
            onFork
              ? (picked) => {
                  onFork(agent, picked);
                }
              : undefined
          }
        />
      ) : (
        <p className="papers-muted">No turns yet.</p>
      )}
    </aside>
  );
}

function AgentFacts({
  agent,
  now,
  onOpenAgent,
}: {
  agent: AgentNode;
  now: number;
  onOpenAgent: (agentId: string) => void;
}) {
  const { parentId } = agent;
  return (
    <>
      <h2>
        Agent {agent.id} <span className={`state-pill state-${agent.state}`}>{agent.state}</span>
      </h2>
      <p className="inspector-task" data-testid="agent-task">
        {agent.prompt}
      </p>
      <p className="papers-muted">
        depth {agent.depth} · {agent.turns.length} turns ·{' '}
        {formatTokens(agent.inputTokens + agent.outputTokens)} tokens · {formatCost(agent.costUsd)}{' '}
        · {formatDuration((agent.finishedAt ?? now) - agent.startedAt)}
        {parentId !== null && (
          <>
            {' · '}
            <button
              type="button"
              className="papers-link-button"
              onClick={() => {
                onOpenAgent(parentId);
              }}
            >
              parent {parentId}
            </button>
          </>
        )}
      </p>
      {agent.state === 'done' && (
        <p className="inspector-answer" data-testid="agent-answer">
          Answer: {answerText(agent.answer)}
        </p>
      )}
      {agent.error && (
        <p className="run-failure" role="alert">
          {agent.error.name}: {agent.error.message}
        </p>
      )}
    </>
  );
}

function CopySubtree({ view, agentId }: { view: RunView; agentId: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = (format: 'json' | 'markdown') => {
    const text =
      format === 'json'
        ? JSON.stringify(subtreeJson(view, agentId), null, 2)
        : subtreeMarkdown(view, agentId);
    navigator.clipboard.writeText(text).then(
      () => {
        setCopied(`Copied the subtree of ${agentId} as ${format === 'json' ? 'JSON' : 'Markdown'}`);
      },
      (error: unknown) => {
        setCopied(`Could not copy: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
  };
  return (
    <div className="inspector-actions">
      <button
        type="button"
        className="run-button"
        data-testid="copy-json"
        onClick={() => {
          copy('json');
        }}
      >
        Copy subtree as JSON
      </button>
      <button
        type="button"
        className="run-button"
        data-testid="copy-markdown"
        onClick={() => {
          copy('markdown');
        }}
      >
        Copy as Markdown
      </button>
      {copied && (
        <span className="papers-muted" role="status" data-testid="copy-status">
          {copied}
        </span>
      )}
    </div>
  );
}

function TurnTimeline({
  agent,
  now,
  selected,
  onSelectTurn,
}: {
  agent: AgentNode;
  now: number;
  selected: TurnView | undefined;
  onSelectTurn: (turn: number) => void;
}) {
  const start = agent.startedAt;
  const end = Math.max(
    start + 1,
    agent.finishedAt ?? now,
    ...agent.turns.map((t) => turnEnd(t, now)),
  );
  return (
    <ol className="turn-timeline" data-testid="turn-timeline" aria-label="Turns">
      {agent.turns.map((entry, index) => {
        const left = ((entry.startedAt - start) / (end - start)) * 100;
        // Placed by time, but the chips after this one keep room at the end: turns crowded at the
        // end of a long agent (its children took the time) stay apart and inside the timeline.
        const room = (agent.turns.length - index) * chipMinPx;
        const width = Math.max(2, ((turnEnd(entry, now) - entry.startedAt) / (end - start)) * 100);
        const failed = entry.code.some((block) => block.error !== null);
        return (
          <li
            key={entry.turn}
            style={{
              left: `max(0px, min(${String(left)}%, calc(100% - ${String(room)}px)))`,
              width: `${String(width)}%`,
            }}
          >
            <button
              type="button"
              className={`turn-chip${failed ? ' failed' : ''}${entry.streaming ? ' live' : ''}`}
              data-testid="turn-chip"
              data-turn={entry.turn}
              aria-current={entry === selected ? 'step' : undefined}
              title={`Turn ${String(entry.turn)}`}
              onClick={() => {
                onSelectTurn(entry.turn);
              }}
            >
              {entry.turn}
            </button>
          </li>
        );
      })}
    </ol>
  );
}
