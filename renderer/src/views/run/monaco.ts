// Monaco, loaded on first use from the bundled monaco-editor package (never a CDN: the app works
// offline): the editor API, its one web worker (bundled by Vite) and the Python grammar only.
import type * as Monaco from 'monaco-editor/editor/editor.api.js';

export type MonacoApi = typeof Monaco;

let loading: Promise<MonacoApi> | null = null;

export function loadMonaco(): Promise<MonacoApi> {
  loading ??= (async () => {
    const [monaco, worker] = await Promise.all([
      import('monaco-editor/editor/editor.api.js'),
      import('monaco-editor/editor/editor.worker.js?worker'),
    ]);
    self.MonacoEnvironment = { getWorker: () => new worker.default() };
    await import('monaco-editor/languages/definitions/python/register.js');
    return monaco;
  })();
  // A failed load may be retried (the next viewer asks again).
  loading.catch(() => {
    loading = null;
  });
  return loading;
}
