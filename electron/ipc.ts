// Binds the engine host to Electron IPC: requests come in on one invoke channel, events go out on
// another. Only frames of the app's own pages reach the host; everything else is refused by name.
import { ipcChannels, serializeError, type ResponseFrame } from '../app/api/index.ts';
import type { Host } from '../host/index.ts';
import { isAppUrl } from './origin.ts';

/** The part of an IpcMainInvokeEvent the binding reads. */
export interface IpcInvokeEventLike {
  readonly senderFrame: { readonly url: string } | null;
}

/** The part of Electron's ipcMain the binding uses; the real ipcMain satisfies it. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcInvokeEventLike, frame: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

/** The part of a WebContents that receives events; the real WebContents satisfies it. */
export interface WebContentsLike {
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

export interface IpcBindingOptions {
  /** Which sender URLs may call the engine; defaults to the app's own origin. */
  isTrustedSender?: (url: string) => boolean;
}

export interface IpcBinding {
  /** Registers a window's contents for the event stream; returns its unregister function. */
  attach(contents: WebContentsLike): () => void;
  /** Removes the request handler and the event subscription. */
  dispose(): void;
}

/** A request from a page that is not the app (a navigated-away frame, an injected iframe). */
export class UntrustedSenderError extends Error {
  override readonly name = 'UntrustedSenderError';
  constructor(url: string | null) {
    const from = url === null ? 'a frame that navigated away or was closed' : `'${url}'`;
    super(
      `Refused an engine request from ${from}: only pages of the app itself may call the engine; reload the window`,
    );
  }
}

export function bindHostToIpc(
  ipcMain: IpcMainLike,
  host: Host,
  options: IpcBindingOptions = {},
): IpcBinding {
  const isTrusted = options.isTrustedSender ?? isAppUrl;
  const targets = new Set<WebContentsLike>();

  ipcMain.handle(ipcChannels.request, (event, frame): Promise<ResponseFrame> => {
    const url = event.senderFrame?.url ?? null;
    if (url === null || !isTrusted(url)) {
      return Promise.resolve(refusal(frame, new UntrustedSenderError(url)));
    }
    return host.handle(frame);
  });

  const unsubscribe = host.onEvent((event) => {
    for (const contents of targets) {
      if (contents.isDestroyed()) {
        targets.delete(contents);
        continue;
      }
      contents.send(ipcChannels.event, event);
    }
  });

  return {
    attach(contents) {
      targets.add(contents);
      return () => targets.delete(contents);
    },
    dispose() {
      ipcMain.removeHandler(ipcChannels.request);
      unsubscribe();
      targets.clear();
    },
  };
}

function refusal(frame: unknown, error: Error): ResponseFrame {
  const id =
    typeof frame === 'object' && frame !== null && 'id' in frame && typeof frame.id === 'number'
      ? frame.id
      : -1;
  return { kind: 'response', id, ok: false, error: serializeError(error) };
}
