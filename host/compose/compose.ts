// The engine as the composition roots (CLI, serve, Electron) build it: one workspace, its papers,
// the run service with model providers and the Python sandbox, and the api host over them.
// `dispose()` ends what they started (extraction workers, the sandbox), so processes can exit.
import { datasetService, type PaperVectors } from '../commands/datasets-handlers.ts';
import type { ApiEvent, AppInfo } from '../../app/api/index.ts';
import {
  createEndpointProvider,
  createProvider,
  endpointSpec,
  FileApiKeyVault,
  type ApiKeyVault,
  type Provider,
  type ProviderFactory,
} from '../../app/models/index.ts';
import { EmbeddingMaps, PaperLibrary, SetMaps, SetSearch } from '../../app/papers/index.ts';
import { ReplSandbox } from '../../app/repl/index.ts';
import { RunService, type SandboxFactory } from '../../app/rlm/index.ts';
import { EvalService } from '../../app/evidence/index.ts';
import { EvalStore, replayLookup, RunStore, type Workspace } from '../../app/store/index.ts';
import { findSavedEndpoint } from '../commands/endpoints-handlers.ts';
import { LogFollows } from '../commands/follow-handlers.ts';
import { trainingHandlers, type TrainerLauncher } from '../commands/training-handlers.ts';
import { createEngineHost, embeddingsDir, type DialogService } from '../commands/engine-host.ts';
import { spawnTrainer } from '../children/trainer-process.ts';
import { loadEmbedderInProcess } from '../children/embedder-process.ts';
import type { Host } from '../commands/command-host.ts';
import { rayClusterBackend, type ClusterBackend } from '../../training/cluster/index.ts';

export interface ComposeOptions {
  workspace: Workspace;
  shell: AppInfo['shell'];
  dialogs?: DialogService | undefined;
  /** The Python sandbox runs use (app/repl); tests may pass a stand-in. */
  sandbox?: SandboxFactory | undefined;
  /**
   * Extra model schemes: `local:` decoded in this process for the CLI and serve
   * (local-models.ts), in a child process for the desktop shell.
   */
  providers?: Readonly<Record<string, ProviderFactory>> | undefined;
  /** Where endpoint keys are kept; the workspace's file vault unless the shell has a keychain. */
  vault?: ApiKeyVault | undefined;
  /** Starts the local trainer process on a job folder (training/, through the launcher). */
  trainer?: TrainerLauncher | undefined;
  /** SkyRL export and Ray jobs; training/cluster's unless a test passes a stand-in. */
  cluster?: ClusterBackend | undefined;
  now?: () => number;
}

export interface Engine {
  host: Host;
  papers: PaperLibrary;
  runs: RunService;
  runStore: RunStore;
  evals: EvalService;
  evalStore: EvalStore;
  /** Makes a model provider from a spec, as runs do (saved endpoints, extra schemes). */
  providers: (spec: string) => Provider | Promise<Provider>;
  /** A set's papers embedded by the model set in Settings (the map's vectors); null without one. */
  paperVectors: PaperVectors;
  dispose(): Promise<void>;
}

export function composeEngine(options: ComposeOptions): Engine {
  const { workspace } = options;
  const papers = new PaperLibrary(workspace.db);
  const runStore = new RunStore(workspace.db);
  runStore.markInterrupted();
  const vault = options.vault ?? new FileApiKeyVault(workspace.dir);
  const providers = modelProviders(options, vault, runStore);
  const runs = new RunService({
    papers,
    store: runStore,
    providers,
    sandbox: options.sandbox ?? ((callbacks) => ReplSandbox.start({ callbacks })),
  });
  const evalStore = new EvalStore(workspace.db);
  evalStore.markInterrupted();
  const evals = new EvalService({ papers, runs, runStore, evals: evalStore, providers });
  // The training handlers emit through the host they are part of, built just below.
  const target: { host?: Host } = {};
  const { dispose: disposeTraining, ...training } = composeTraining(options, vault, (event) => {
    target.host?.emit(event);
  });
  const embeddings = new EmbeddingMaps({
    cacheDir: embeddingsDir(workspace),
    load: loadEmbedderInProcess,
  });
  const follows = new LogFollows(runStore);
  const search = new SetSearch(papers);
  const maps = new SetMaps(search, embeddings);
  const paperVectors: PaperVectors = async (set) => {
    const folder = workspace.settings.get().embeddingModel;
    return folder === null ? null : maps.paperVectors(set, folder);
  };
  const datasets = datasetService({
    db: workspace.db,
    papers,
    providers,
    paperVectors,
    emit: (event) => {
      target.host?.emit(event);
    },
    now: options.now ?? Date.now,
  });
  const host = createEngineHost({
    datasets,
    search,
    maps,
    embeddings,
    follows,
    training,
    evals,
    evalStore,
    workspace,
    shell: options.shell,
    dialogs: options.dialogs,
    vault,
    papers,
    runs,
    runStore,
    cluster: options.cluster ?? rayClusterBackend(),
    ...(options.now ? { now: options.now } : {}),
  });
  target.host = host;
  return {
    host,
    papers,
    runs,
    runStore,
    evals,
    evalStore,
    providers,
    paperVectors,
    async dispose() {
      follows.stopAll();
      // A generation stops at its next group edge; what it finished is stored.
      datasets.cancelAll();
      await datasets.settled();
      disposeTraining();
      await evals.dispose();
      await runs.dispose();
      await papers.dispose();
      await embeddings.dispose();
    },
  };
}

/** Model specs to providers: a saved endpoint (Settings > Models) runs with its stored key. */
function modelProviders(
  options: ComposeOptions,
  vault: ApiKeyVault,
  runStore: RunStore,
): (spec: string) => Provider | Promise<Provider> {
  return (spec) => {
    const saved = findSavedEndpoint(options.workspace, spec);
    if (saved !== undefined) return createEndpointProvider(saved, vault);
    return createProvider(spec, {
      replay: (runId) => replayLookup(runStore, runId),
      ...(options.providers ? { factories: options.providers } : {}),
    });
  };
}

/** The training commands over the trainer child (or the launcher a test passes). */
function composeTraining(
  options: ComposeOptions,
  vault: ApiKeyVault,
  emit: (event: ApiEvent) => void,
): ReturnType<typeof trainingHandlers> {
  const { workspace } = options;
  return trainingHandlers(workspace.dir, emit, options.now ?? Date.now, {
    launcher: options.trainer ?? spawnTrainer,
    // The trainer's own engine cannot read this vault (the OS keychain under the desktop shell).
    resolveSaved: async (spec) => {
      const saved = findSavedEndpoint(workspace, spec);
      if (saved === undefined) return undefined;
      const apiKey = saved.apiKeyRef === undefined ? undefined : await vault.get(saved.apiKeyRef);
      return { spec: endpointSpec(saved), apiKey };
    },
  });
}
