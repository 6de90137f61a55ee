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
} from '../api/index.ts';

export type CommandHandlers = {
  [C in CommandName]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

export interface Host {
  /** Answers one request frame; never throws (errors become error responses). */
  handle(raw: unknown): Promise<ResponseFrame>;
  /** Sends an event to every subscriber (every connected front end). */
  emit(event: ApiEvent): void;
  onEvent(listener: (event: ApiEvent) => void): Unsubscribe;
}

export function createHost(handlers: CommandHandlers): Host {
  const listeners = new Set<(event: ApiEvent) => void>();

  async function dispatch(command: CommandName, payload: unknown): Promise<unknown> {
    const args: unknown = parsePayload(commands[command].request, payload, `request '${command}'`);
    // The schema just checked `args` against this command's request, so the widening is sound.
    const handler = handlers[command] as (args: unknown) => unknown;
    return await handler(args);
  }

  return {
    async handle(raw) {
      const id =
        typeof raw === 'object' && raw !== null && 'id' in raw && typeof raw.id === 'number'
          ? raw.id
          : -1;
      try {
        const frame = parsePayload(RequestFrame, raw, 'request frame');
        if (!isCommandName(frame.command)) throw new UnknownCommandError(frame.command);
        const result = await dispatch(frame.command, frame.payload);
        return { kind: 'response', id: frame.id, ok: true, result };
      } catch (error) {
        return { kind: 'response', id, ok: false, error: serializeError(error) };
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
