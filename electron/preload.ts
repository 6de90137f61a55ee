// The sandboxed preload: builds the api client over IPC and exposes only its call/on/onAny to the
// page. Bundled to CommonJS with everything but 'electron' inlined (a sandbox may require nothing else).
import { contextBridge, ipcRenderer } from 'electron';
import { createApiClient } from '../app/api/index.ts';
import { createIpcTransport, exposeApi } from './bridge.ts';

exposeApi(contextBridge, createApiClient(createIpcTransport(ipcRenderer)));
