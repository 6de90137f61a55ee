// Named errors of a run: every budget has its own, saying which limit was hit and how to raise it.
export class BudgetExceededError extends Error {
  readonly budget: string;
  constructor(budget: string, message: string) {
    super(message);
    this.budget = budget;
  }
}

export class TurnBudgetExceededError extends BudgetExceededError {
  override readonly name = 'TurnBudgetExceededError';
  constructor(agentId: string, maxTurns: number) {
    super(
      'maxTurns',
      `Agent ${agentId} used all ${maxTurns} turns without a final answer (raise --max-turns)`,
    );
  }
}

export class DepthBudgetExceededError extends BudgetExceededError {
  override readonly name = 'DepthBudgetExceededError';
  constructor(agentId: string, maxDepth: number) {
    super(
      'maxDepth',
      `Agent ${agentId} may not spawn children: the run allows depth ${maxDepth} (raise --max-depth)`,
    );
  }
}

export class ChildrenBudgetExceededError extends BudgetExceededError {
  override readonly name = 'ChildrenBudgetExceededError';
  constructor(agentId: string, asked: number, max: number) {
    super(
      'maxChildrenPerCall',
      `Agent ${agentId} asked for ${asked} children in one call; at most ${max} are allowed (raise --max-children)`,
    );
  }
}

export class AgentBudgetExceededError extends BudgetExceededError {
  override readonly name = 'AgentBudgetExceededError';
  constructor(max: number) {
    super('maxAgents', `The run reached its limit of ${max} agents (raise --max-agents)`);
  }
}

export class TokenBudgetExceededError extends BudgetExceededError {
  override readonly name = 'TokenBudgetExceededError';
  constructor(used: number, max: number) {
    super(
      'maxTokens',
      `The run used ${used.toLocaleString('en-US')} tokens, over its budget of ${max.toLocaleString('en-US')} (raise --max-tokens)`,
    );
  }
}

export class WallTimeExceededError extends BudgetExceededError {
  override readonly name = 'WallTimeExceededError';
  constructor(ms: number) {
    super(
      'wallTimeMs',
      `The run passed its wall-time budget of ${(ms / 1000).toFixed(0)} s (raise --max-seconds)`,
    );
  }
}

export class RunCanceledError extends Error {
  override readonly name = 'RunCanceledError';
  constructor() {
    super('The run was canceled');
  }
}
