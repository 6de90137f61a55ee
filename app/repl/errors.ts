// Named errors of the REPL host. Each message says what happened and what the caller should do;
// errors inside model code are not thrown here, they come back in ExecutionResult.error.
export class ReplStartError extends Error {
  override readonly name = 'ReplStartError';
  constructor(reason: string) {
    super(
      `the Python interpreter could not start: ${reason}; check that the pyodide package is installed (npm install) and that Node 24+ runs this process`,
    );
  }
}

export class ReplDisposedError extends Error {
  override readonly name = 'ReplDisposedError';
  constructor() {
    super('this REPL was disposed; start a new one with ReplSandbox.start()');
  }
}

export class UnknownAgentError extends Error {
  override readonly name = 'UnknownAgentError';
  constructor(agentId: string) {
    super(
      `agent '${agentId}' does not exist in this REPL; call createAgent('${agentId}', context) first`,
    );
  }
}

export class AgentExistsError extends Error {
  override readonly name = 'AgentExistsError';
  constructor(agentId: string) {
    super(`agent '${agentId}' already exists in this REPL; dispose it first or use another id`);
  }
}

export class AgentBusyError extends Error {
  override readonly name = 'AgentBusyError';
  constructor(agentId: string) {
    super(
      `agent '${agentId}' is already running code; wait for that run to finish before starting another`,
    );
  }
}

export class AgentCreateError extends Error {
  override readonly name = 'AgentCreateError';
  constructor(agentId: string, reason: string) {
    super(`agent '${agentId}' could not be created in the interpreter: ${reason}`);
  }
}

export class ReplLimitError extends Error {
  override readonly name = 'ReplLimitError';
  constructor(limit: string, value: unknown, expected: string) {
    super(`REPL limit ${limit}=${String(value)} is not valid; expected ${expected}`);
  }
}
