// One agent in the tree: its id and state, turns, tokens, cost, time and the start of its answer;
// for a training rollout also the advantage it trained with, its weight and its trained turns.
import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { formatClock, formatCost, formatDuration, formatTokens } from './agent-summary.ts';
import { agentTrainingLine, agentTrainingTitle } from './rollout-training.ts';
import type { AgentCardNode } from './tree-graph.ts';

const stateLabels = {
  running: 'running',
  waiting: 'waiting on children',
  done: 'done',
  failed: 'failed',
} as const;

export const AgentCard = memo(function AgentCard({ data, selected }: NodeProps<AgentCardNode>) {
  const { summary, match, training } = data;
  return (
    <div
      className={`agent-card state-${summary.state}${selected ? ' selected' : ''}${match ? ' match' : ''}${training ? ' trained' : ''}`}
      data-testid="agent-node"
      data-agent={summary.id}
      data-state={summary.state}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="agent-card-head">
        <span className="agent-card-id">{summary.id}</span>
        <span className="agent-card-state">{stateLabels[summary.state]}</span>
      </div>
      <div className="agent-card-stats">
        <span title="turns">{summary.turns} turns</span>
        <span title="tokens">{formatTokens(summary.tokens)} tok</span>
        <span title="cost">{formatCost(summary.costUsd)}</span>
        <span title="time">
          {summary.state === 'running' || summary.state === 'waiting'
            ? formatClock(summary.elapsedMs)
            : formatDuration(summary.elapsedMs)}
        </span>
      </div>
      {training && (
        <div
          className="agent-card-training"
          data-testid="agent-training"
          data-advantage={training.advantage}
          data-inherited={training.inherited}
          data-weight={training.weight}
          data-trained-turns={training.trainedTurns.length}
          title={agentTrainingTitle(training)}
        >
          {agentTrainingLine(training)}
        </div>
      )}
      <div className="agent-card-answer" title={summary.answerStart}>
        {summary.answerStart || '\u00a0'}
      </div>
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});
