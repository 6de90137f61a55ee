// Errors that cross the engine/front-end boundary. They travel as {name, message} and are rebuilt on
// the other side, so the user sees the real message and not "Error invoking remote method".
import type { z } from 'zod';

/** A payload that does not match its schema. The message names the offending field. */
export class ApiValidationError extends Error {
  override readonly name = 'ApiValidationError';
  readonly fields: readonly string[];

  constructor(where: string, error: z.ZodError) {
    const issues = error.issues.map((issue) => {
      const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
      return { field, text: `field '${field}': ${issue.message}` };
    });
    super(`${where}: ${issues.map((i) => i.text).join('; ')}`);
    this.fields = issues.map((i) => i.field);
  }
}

/** A command name the contract does not know. */
export class UnknownCommandError extends Error {
  override readonly name = 'UnknownCommandError';
  constructor(command: string) {
    super(`Unknown command '${command}': the front end and the engine disagree on the api version`);
  }
}

/** The connection to the engine closed or failed; pending calls reject with this. */
export class ApiDisconnectedError extends Error {
  override readonly name = 'ApiDisconnectedError';
  constructor(reason: string) {
    super(`Lost the connection to the engine (${reason}); reload the window to reconnect`);
  }
}

/** An error raised by a command handler on the engine side, rebuilt in the front end. */
export class RemoteCommandError extends Error {
  readonly remoteName: string;
  readonly fields: readonly string[];
  constructor(remoteName: string, message: string, fields: readonly string[] = []) {
    super(message);
    this.name = remoteName;
    this.remoteName = remoteName;
    this.fields = fields;
  }
}

export interface SerializedError {
  name: string;
  message: string;
  fields?: string[] | undefined;
}

/** Turns anything thrown into the wire form; never loses the message. */
export function serializeError(error: unknown): SerializedError {
  if (error instanceof ApiValidationError) {
    return { name: error.name, message: error.message, fields: [...error.fields] };
  }
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
