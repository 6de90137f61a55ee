// The sandboxed preload: exposes plain request/event frames to the page, which builds the api client
// itself. Bundled to CommonJS with everything but 'electron' inlined (a sandbox may require nothing else).
import { contextBridge, ipcRenderer } from 'electron';
import { exposeBridge } from './bridge.ts';

exposeBridge(contextBridge, ipcRenderer);
