// Test support: the engine parts a job's rollouts run on, wired from app/ as host/compose/compose.ts
// wires them (training/ may not import host/): papers, the run store, the run service with the
// given sandbox and extra model schemes.
import { createProvider, type ProviderFactory } from '../../app/models/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { ReplSandbox } from '../../app/repl/index.ts';
import { RunService, type SandboxFactory } from '../../app/rlm/index.ts';
import { RunStore, type Workspace } from '../../app/store/index.ts';
import type { RolloutEngine } from './local-job.ts';

export function testRolloutEngine(
  workspace: Workspace,
  factories: Readonly<Record<string, ProviderFactory>> = {},
  sandbox: SandboxFactory = (callbacks) => ReplSandbox.start({ callbacks }),
): RolloutEngine {
  const papers = new PaperLibrary(workspace.db);
  const runStore = new RunStore(workspace.db);
  const providers = (spec: string) => createProvider(spec, { factories });
  const runs = new RunService({ papers, store: runStore, providers, sandbox });
  return {
    papers,
    runs,
    runStore,
    providers,
    async dispose() {
      await runs.dispose();
      await papers.dispose();
    },
  };
}
