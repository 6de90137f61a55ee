// The engine host: validates request frames, runs the command's handler, and fans events out to
// every connected front end. Transports (WebSocket server, Electron IPC) only carry frames to it.
import {
  commands,
  isCommandName,
  parsePayload,
  RequestFrame,
  serializeError,
  UnknownCommandError,
  type ApiEvent,
  type CommandArgs,
  type CommandName,
  type CommandResponse,
  type ResponseFrame,
  type Unsubscribe,
} from '../../app/api/index.ts';

export type CommandHandlers = {
  [C in CommandName]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

/**
 * Answers given as JSON text: the same value the command's handler returns, already serialized, so
 * a text transport (the WebSocket server) sends a stored log as stored instead of parsing its rows
 * and stringifying them again. Transports that carry objects (Electron IPC) use the handler.
 */
export type TextAnswers = {
  [C in CommandName]?: (args: CommandArgs<C>) => Promise<string> | string;
};

export interface Host {
  /** Answers one request frame; never throws (errors become error responses). */
  handle(raw: unknown): Promise<ResponseFrame>;
  /** The same answer as `handle`, as the JSON text of the response frame (see TextAnswers). */
  handleText(raw: unknown): Promise<string>;
  /** Sends an event to every subscriber (every connected front end). */
  emit(event: ApiEvent): void;
  onEvent(listener: (event: ApiEvent) => void): Unsubscribe;
}

/** The request's id, command and checked arguments; throws a named error for a bad frame. */
function request(raw: unknown): { id: number; command: CommandName; args: unknown } {
  const frame = parsePayload(RequestFrame, raw, 'request frame');
  if (!isCommandName(frame.command)) throw new UnknownCommandError(frame.command);
  const { command } = frame;
  const args: unknown = parsePayload(
    commands[command].request,
    frame.payload,
    `request '${command}'`,
  );
  return { id: frame.id, command, args };
}
const idOf = (raw: unknown): number =>
  typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number'
    ? raw.id
    : -1;

export function createHost(handlers: CommandHandlers, textAnswers: TextAnswers = {}): Host {
  const listeners = new Set<(event: ApiEvent) => void>();

  async function handle(raw: unknown): Promise<ResponseFrame> {
    try {
      const { id, command, args } = request(raw);
      // The schema just checked `args` against this command's request, so the widening is sound.
      const handler = handlers[command] as (args: unknown) => unknown;
      return { kind: 'response', id, ok: true, result: await handler(args) };
    } catch (error) {
      return { kind: 'response', id: idOf(raw), ok: false, error: serializeError(error) };
    }
  }

  return {
    handle,
    async handleText(raw) {
      const command =
        typeof raw === 'object' && raw !== null && 'command' in raw ? raw.command : undefined;
      const answer =
        typeof command === 'string' && isCommandName(command) ? textAnswers[command] : undefined;
      if (!answer) return JSON.stringify(await handle(raw));
      try {
        const { id, args } = request(raw);
        const result = await (answer as (args: unknown) => Promise<string> | string)(args);
        return `{"kind":"response","id":${String(id)},"ok":true,"result":${result}}`;
      } catch (error) {
        const failed: ResponseFrame = {
          kind: 'response',
          id: idOf(raw),
          ok: false,
          error: serializeError(error),
        };
        return JSON.stringify(failed);
      }
    },
    emit(event) {
      for (const listener of listeners) {
        try {
          listener(event);
        } catch (error) {
          console.error('[rlm-studio host] an event listener failed:', error);
        }
      }
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
