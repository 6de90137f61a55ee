// One turn of an agent: timings, tokens and cost, the exact prompt sent (every message), the response
// (rendered or raw), each code block in Monaco with its stdout, stderr, error and variables, and the
// child calls it made, each linking to the child's node.
import { useState } from 'react';
import type { RunView, TurnView } from '../../../../app/run-log/index.ts';
import { formatCost, formatDuration } from './agent-summary.ts';
import { CodeViewer } from './CodeViewer.tsx';
import { responseParts } from './response-parts.ts';

export interface TurnDetailProps {
  view: RunView;
  agentStartedAt: number;
  turn: TurnView;
  onOpenAgent: (agentId: string) => void;
  /** Offered when the engine can fork (a finished run). */
  onFork?: ((turn: TurnView) => void) | undefined;
}

export function TurnDetail({ view, agentStartedAt, turn, onOpenAgent, onFork }: TurnDetailProps) {
  const codeMs = turn.code.reduce((sum, block) => sum + (block.durationMs ?? 0), 0);
  return (
    <div className="turn-detail" data-testid="turn-detail" data-turn={turn.turn}>
      <dl className="turn-facts">
        <dt>Started</dt>
        <dd>+{formatDuration(turn.startedAt - agentStartedAt)}</dd>
        <dt>Model</dt>
        <dd>{turn.latencyMs === null ? 'streaming…' : formatDuration(turn.latencyMs)}</dd>
        <dt>Code</dt>
        <dd>{formatDuration(codeMs)}</dd>
        <dt>Tokens</dt>
        <dd>
          {turn.inputTokens.toLocaleString()} in · {turn.outputTokens.toLocaleString()} out
        </dd>
        <dt>Cost</dt>
        <dd>{formatCost(turn.costUsd)}</dd>
      </dl>
      {onFork && (
        <button
          type="button"
          className="run-button"
          data-testid="fork-turn"
          onClick={() => {
            onFork(turn);
          }}
        >
          Fork from this turn…
        </button>
      )}
      <section className="turn-section">
        <h3>Prompt sent ({turn.messages.length} messages)</h3>
        {turn.messages.map((message, index) => (
          <details
            key={index}
            className="turn-message"
            data-testid="turn-message"
            open={index === turn.messages.length - 1}
          >
            <summary>
              {message.role} · {message.content.length.toLocaleString()} chars
            </summary>
            <pre className="turn-pre">{message.content}</pre>
          </details>
        ))}
      </section>
      <ResponseSection response={turn.response} streaming={turn.streaming} />
      {turn.code.map((block) => (
        <CodeBlockSection key={block.block} block={block} />
      ))}
      {turn.children.length > 0 && <ChildCalls view={view} turn={turn} onOpenAgent={onOpenAgent} />}
    </div>
  );
}

function CodeBlockSection({ block }: { block: TurnView['code'][number] }) {
  return (
    <section className="turn-section" data-testid="turn-code">
      <h3>
        Code block {block.block + 1}
        {block.durationMs !== null && ` · ran ${formatDuration(block.durationMs)}`}
      </h3>
      <CodeViewer code={block.code} />
      {block.stdout !== '' && (
        <>
          <h4>stdout</h4>
          <pre className="turn-pre" data-testid="turn-stdout">
            {block.stdout}
          </pre>
        </>
      )}
      {block.stderr !== '' && (
        <>
          <h4>stderr</h4>
          <pre className="turn-pre stderr">{block.stderr}</pre>
        </>
      )}
      {block.error && (
        <p className="run-failure" role="alert">
          {block.error.type}: {block.error.message}
        </p>
      )}
      {block.variables.length > 0 && (
        <table className="turn-variables" data-testid="turn-variables">
          <thead>
            <tr>
              <th>Variable</th>
              <th>Type</th>
              <th>Value</th>
            </tr>
          </thead>
          <tbody>
            {block.variables.map((variable) => (
              <tr key={variable.name}>
                <td>{variable.name}</td>
                <td>{variable.type}</td>
                <td>
                  <code>{variable.repr}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ChildCalls({
  view,
  turn,
  onOpenAgent,
}: {
  view: RunView;
  turn: TurnView;
  onOpenAgent: (agentId: string) => void;
}) {
  return (
    <section className="turn-section">
      <h3>Child calls ({turn.children.length})</h3>
      <ul className="turn-children">
        {turn.children.map((child, index) => {
          const childAgent = child.childId !== null ? view.agents.get(child.childId) : undefined;
          return (
            <li key={index} data-testid="turn-child">
              <span className="turn-child-kind">{child.call}_query</span>
              {child.childId !== null ? (
                <button
                  type="button"
                  className="papers-link-button"
                  data-testid="turn-child-link"
                  data-agent={child.childId}
                  onClick={() => {
                    if (child.childId !== null) onOpenAgent(child.childId);
                  }}
                >
                  agent {child.childId}
                  {childAgent && ` (${childAgent.state})`}
                </button>
              ) : null}
              <span className="turn-child-prompt">{child.prompt}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function ResponseSection({ response, streaming }: { response: string; streaming: boolean }) {
  const [raw, setRaw] = useState(false);
  return (
    <section className="turn-section" data-testid="turn-response">
      <h3>
        Response{streaming && ' (streaming)'}
        <span className="turn-toggle" role="group" aria-label="Response view">
          <button
            type="button"
            aria-pressed={!raw}
            onClick={() => {
              setRaw(false);
            }}
          >
            Rendered
          </button>
          <button
            type="button"
            aria-pressed={raw}
            data-testid="response-raw"
            onClick={() => {
              setRaw(true);
            }}
          >
            Raw
          </button>
        </span>
      </h3>
      {raw ? (
        <pre className="turn-pre" data-testid="response-raw-text">
          {response}
        </pre>
      ) : (
        <div className="turn-rendered">
          {responseParts(response).map((part, index) =>
            part.kind === 'text' ? (
              <p key={index} className="turn-prose">
                {part.text}
              </p>
            ) : (
              <pre key={index} className="turn-pre code" data-language={part.language}>
                {part.code}
              </pre>
            ),
          )}
        </div>
      )}
    </section>
  );
}
