// The engine as the composition roots (CLI, serve, Electron) build it: one workspace, its papers,
// the run service with model providers and the Python sandbox, and the api host over them.
// `dispose()` ends what they started (extraction workers, the sandbox), so processes can exit.
import type { AppInfo } from '../api/index.ts';
import { createProvider, type ProviderFactory } from '../models/index.ts';
import { PaperLibrary } from '../papers/index.ts';
import { ReplSandbox } from '../repl/index.ts';
import { RunService, type SandboxFactory } from '../rlm/index.ts';
import { replayLookup, RunStore, type Workspace } from '../store/index.ts';
import { createEngineHost, type DialogService } from './engine.ts';
import type { Host } from './host.ts';

export interface ComposeOptions {
  workspace: Workspace;
  shell: AppInfo['shell'];
  dialogs?: DialogService | undefined;
  /** The Python sandbox runs use (app/repl); tests may pass a stand-in. */
  sandbox?: SandboxFactory | undefined;
  /** Extra model schemes, such as `local:` from training/engine. */
  providers?: Readonly<Record<string, ProviderFactory>> | undefined;
  now?: () => number;
}

export interface Engine {
  host: Host;
  papers: PaperLibrary;
  runs: RunService;
  runStore: RunStore;
  dispose(): Promise<void>;
}

export function composeEngine(options: ComposeOptions): Engine {
  const { workspace } = options;
  const papers = new PaperLibrary(workspace.db);
  const runStore = new RunStore(workspace.db);
  runStore.markInterrupted();
  const runs = new RunService({
    papers,
    store: runStore,
    providers: (spec) =>
      createProvider(spec, {
        replay: (runId) => replayLookup(runStore, runId),
        ...(options.providers ? { factories: options.providers } : {}),
      }),
    sandbox: options.sandbox ?? ((callbacks) => ReplSandbox.start({ callbacks })),
  });
  const host = createEngineHost({
    workspace,
    shell: options.shell,
    dialogs: options.dialogs,
    papers,
    runs,
    ...(options.now ? { now: options.now } : {}),
  });
  return {
    host,
    papers,
    runs,
    runStore,
    async dispose() {
      await runs.dispose();
      await papers.dispose();
    },
  };
}
