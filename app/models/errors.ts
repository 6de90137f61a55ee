// Named errors of app/models. Each message says what to do next, and every message is passed
// through redactSecrets in the base class, so an API key can never ride out on an error.
import { redactSecrets } from './redact.ts';

/** Base of every error thrown by app/models; its message is already redacted. */
export class ModelError extends Error {
  override readonly name: string = 'ModelError';
  constructor(message: string, secrets: readonly (string | undefined)[] = []) {
    super(redactSecrets(message, secrets));
  }
}

export class ModelCallCanceledError extends ModelError {
  override readonly name = 'ModelCallCanceledError';
  constructor(spec: string) {
    super(`the call to model '${spec}' was canceled before it finished`);
  }
}

export class ModelAuthError extends ModelError {
  override readonly name = 'ModelAuthError';
  readonly status: number;
  constructor(
    spec: string,
    status: number,
    keySource: string,
    serverMessage: string,
    secrets: readonly (string | undefined)[],
  ) {
    const what = status === 403 ? 'refused this API key the model' : 'rejected the API key';
    super(
      `'${spec}' ${what} (HTTP ${status}: ${serverMessage}); check ${keySource} and that the key may use this model`,
      secrets,
    );
    this.status = status;
  }
}

export class ModelNotFoundError extends ModelError {
  override readonly name = 'ModelNotFoundError';
  constructor(spec: string, model: string, serverMessage: string, secrets: readonly string[]) {
    super(
      `'${spec}': the server does not know model '${model}' (HTTP 404: ${serverMessage}); check the model name and the base URL`,
      secrets,
    );
  }
}

export class ModelBadRequestError extends ModelError {
  override readonly name = 'ModelBadRequestError';
  readonly status: number;
  constructor(spec: string, status: number, serverMessage: string, secrets: readonly string[]) {
    super(
      `'${spec}' refused the request (HTTP ${status}): ${serverMessage}; shorten the prompt or fix the named parameter`,
      secrets,
    );
    this.status = status;
  }
}

/** A failure the server reported that no retry can fix and no narrower class describes. */
export class ModelRequestError extends ModelError {
  override readonly name = 'ModelRequestError';
  readonly status: number | undefined;
  constructor(
    spec: string,
    status: number | undefined,
    serverMessage: string,
    secrets: readonly string[],
  ) {
    const code = status === undefined ? 'in the stream' : `HTTP ${status}`;
    super(`'${spec}' failed (${code}): ${serverMessage}`, secrets);
    this.status = status;
  }
}

export class ModelTimeoutError extends ModelError {
  override readonly name = 'ModelTimeoutError';
  constructor(spec: string, timeoutMs: number) {
    super(
      `'${spec}' did not finish within ${timeoutMs} ms; raise the timeout or ask for less output`,
    );
  }
}

export class ModelRetriesExhaustedError extends ModelError {
  override readonly name = 'ModelRetriesExhaustedError';
  readonly attempts: number;
  constructor(spec: string, attempts: number, lastFailure: string, secrets: readonly string[]) {
    super(
      `'${spec}' still failed after ${attempts} attempt${attempts === 1 ? '' : 's'} (last: ${lastFailure}); check that the server is up and not overloaded, or try again later`,
      secrets,
    );
    this.attempts = attempts;
  }
}

/** The stream broke after text had already been delivered, so the call cannot be retried. */
export class ModelStreamInterruptedError extends ModelError {
  override readonly name = 'ModelStreamInterruptedError';
  constructor(spec: string, reason: string, secrets: readonly string[]) {
    super(
      `'${spec}': the response stream broke after part of the answer had arrived (${reason}); run the turn again`,
      secrets,
    );
  }
}

export class MissingApiKeyError extends ModelError {
  override readonly name = 'MissingApiKeyError';
  constructor(spec: string, envVar: string) {
    super(`'${spec}' needs an API key: set ${envVar} or add the key in Settings > Models`);
  }
}

export class InvalidModelSpecError extends ModelError {
  override readonly name = 'InvalidModelSpecError';
  constructor(spec: string, problem: string) {
    super(`model spec '${spec}' is not valid: ${problem}`);
  }
}

export class UnknownModelSpecError extends ModelError {
  override readonly name = 'UnknownModelSpecError';
  constructor(spec: string, scheme: string, known: readonly string[]) {
    super(
      `model spec '${spec}' uses the unknown scheme '${scheme}'; use one of: ${known.map((s) => `${s}:`).join(', ')}`,
    );
  }
}

export class ReplayUnavailableError extends ModelError {
  override readonly name = 'ReplayUnavailableError';
  constructor(spec: string) {
    super(
      `'${spec}' needs the run store to replay from, and none was given; open a workspace that holds the run`,
    );
  }
}

export class ReplayEntryMissingError extends ModelError {
  override readonly name = 'ReplayEntryMissingError';
  constructor(run: string, agentId: string, turn: number) {
    super(
      `run '${run}' has no stored response for agent '${agentId}' turn ${turn}; the replay asked for more than the run did (was the run changed or interrupted?)`,
    );
  }
}

export class ScriptExhaustedError extends ModelError {
  override readonly name = 'ScriptExhaustedError';
  readonly agentId: string;
  readonly responses: number;
  readonly turn: number;
  constructor(agentId: string, responses: number, turn: number, source: string) {
    super(
      responses === 0
        ? `script ${source} has no responses for agent '${agentId}' (asked for turn ${turn}); add a "${agentId}" entry`
        : `script ${source}: agent '${agentId}' had ${responses} response${responses === 1 ? '' : 's'} and was asked for turn ${turn}; add more responses or end that agent with FINAL(...) sooner`,
    );
    this.agentId = agentId;
    this.responses = responses;
    this.turn = turn;
  }
}

export class InvalidScriptError extends ModelError {
  override readonly name = 'InvalidScriptError';
  constructor(source: string, problem: string) {
    super(
      `script ${source} is not valid: ${problem}. Expected {"0": ["...", ...], "0.0": [...]} or {"delayMs": 200, "responses": {...}}`,
    );
  }
}

export class InvalidConcurrencyLimitError extends ModelError {
  override readonly name = 'InvalidConcurrencyLimitError';
  constructor(value: number) {
    super(`in-flight model calls must be a whole number of at least 1 (or Infinity), not ${value}`);
  }
}

export class ApiKeyVaultError extends ModelError {
  override readonly name = 'ApiKeyVaultError';
}
