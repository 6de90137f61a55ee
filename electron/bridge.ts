// The preload's one job, kept free of the electron import so tests drive it with fakes: expose plain
// frames (request/onEvent) to the page. The page builds the api client itself, so every error is
// rebuilt on its side of contextBridge (which would strip an error's name and fields).
import {
  ipcChannels,
  exposedApiKey,
  type ExposedBridge,
  type RequestFrame,
} from '../app/api/index.ts';

/** The part of Electron's ipcRenderer the bridge uses; the real ipcRenderer satisfies it. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

/** The part of Electron's contextBridge the preload uses. */
export interface ContextBridgeLike {
  exposeInMainWorld(key: string, api: ExposedBridge): void;
}

/** Exposes exactly request/onEvent under window[exposedApiKey]. */
export function exposeBridge(contextBridge: ContextBridgeLike, ipcRenderer: IpcRendererLike): void {
  const bridge: ExposedBridge = {
    // The main process answers with a serialized ResponseFrame; a failed invoke just rejects, and
    // the page's transport turns that into an IpcInvokeError response.
    request: (frame: RequestFrame) => ipcRenderer.invoke(ipcChannels.request, frame),
    onEvent: (listener) => {
      const forward = (_event: unknown, ...args: unknown[]) => {
        listener(args[0]);
      };
      ipcRenderer.on(ipcChannels.event, forward);
      return () => {
        ipcRenderer.removeListener(ipcChannels.event, forward);
      };
    },
  };
  contextBridge.exposeInMainWorld(exposedApiKey, bridge);
}
