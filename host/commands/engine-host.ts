// Wires the engine's services into command handlers. The composition roots (the CLI's serve
// command, Electron's main process) call this with what their shell can offer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ApiEvent,
  type AppInfo,
  type CommandArgs,
  type CommandResponse,
} from '../../app/api/index.ts';
import { FileApiKeyVault, type ApiKeyVault } from '../../app/models/index.ts';
import {
  checkModelFolder,
  EmbeddingMaps,
  SetMaps,
  SetSearch,
  type ModelTypeCheck,
  type PaperLibrary,
} from '../../app/papers/index.ts';
import { knownModelTypeInProcess, loadEmbedderInProcess } from '../children/embedder-process.ts';
import type { EvalService } from '../../app/evidence/index.ts';
import type { RunService } from '../../app/rlm/index.ts';
import { RunStore, schemaVersion, type EvalStore, type Workspace } from '../../app/store/index.ts';
import type { ClusterBackend } from '../../training/cluster/index.ts';
import { clusterHandlers } from './cluster-handlers.ts';
import { endpointHandlers } from './endpoints-handlers.ts';
import { evalHandlers } from './evals-handlers.ts';
import { paperHandlers } from './papers-handlers.ts';
import { runHandlers, runTextAnswers } from './runs-handlers.ts';
import { followHandlers, LogFollows } from './follow-handlers.ts';
import { createHost, type CommandHandlers, type Host } from './command-host.ts';
import { trainingHandlers, type TrainingHandlers } from './training-handlers.ts';
import { datasetService, type DatasetService } from './datasets-handlers.ts';
import { sftHandlers } from './sft-sets-handlers.ts';

export class NativeDialogUnavailableError extends Error {
  override readonly name = 'NativeDialogUnavailableError';
  constructor() {
    super(
      'Native file dialogs exist only in the desktop app; in the browser, drop files on the view or use its file picker',
    );
  }
}

export interface DialogService {
  openPaths(options: CommandArgs<'dialog.openPaths'>): Promise<CommandResponse<'dialog.openPaths'>>;
}

export interface EngineOptions {
  workspace: Workspace;
  shell: AppInfo['shell'];
  papers: PaperLibrary;
  /** Runs RLMs (models and the REPL are wired by the composition root: see compose.ts). */
  runs: RunService;
  /** Batch evaluations (app/evidence) over the same runs and store. */
  evals: EvalService;
  evalStore: EvalStore;
  /** The store the run service writes to (one store, one write queue); a new one if absent. */
  runStore?: RunStore | undefined;
  dialogs?: DialogService | undefined;
  /** Where model endpoint keys are kept (the desktop app passes the OS keychain's). */
  vault?: ApiKeyVault | undefined;
  /** The training jobs' handlers (compose.ts builds them with the trainer launcher). */
  training?: TrainingHandlers | undefined;
  /** SkyRL export and Ray jobs (training/cluster, given by the composition root). */
  cluster?: ClusterBackend | undefined;
  now?: () => number;
  /** Sentence embeddings for the map (the composition root disposes them); a new one if absent. */
  embeddings?: EmbeddingMaps | undefined;
  /** Whether transformers.js knows a model type; asks the embedding process if absent. */
  knownModelType?: ModelTypeCheck | undefined;
  /** Logs followed as other tools write them (the composition root stops them); new if absent. */
  follows?: LogFollows | undefined;
  /** Dataset commands and running generations (compose.ts cancels them on dispose); absent: none. */
  datasets?: DatasetService | undefined;
  /** The sets' search indexes and maps (compose.ts shares them with dataset grouping); new if absent. */
  search?: SetSearch | undefined;
  maps?: SetMaps | undefined;
}

/** Where a workspace keeps its passage embeddings, one file per model. */
export function embeddingsDir(workspace: Workspace): string {
  return join(workspace.dir, 'embeddings');
}

export function appVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as {
    version: string;
  };
  return manifest.version;
}

export function createEngineHost(options: EngineOptions): Host {
  const { workspace, papers } = options;
  const now = options.now ?? Date.now;
  const search = options.search ?? new SetSearch(papers);
  const maps =
    options.maps ??
    new SetMaps(
      search,
      options.embeddings ??
        new EmbeddingMaps({ cacheDir: embeddingsDir(workspace), load: loadEmbedderInProcess }),
    );
  const runStore = options.runStore ?? new RunStore(workspace.db);
  const follows = options.follows ?? new LogFollows(runStore);
  // Every handler emits through the host it is part of, built just below.
  const emit = (event: ApiEvent) => {
    host.emit(event);
  };
  const host: Host = createHost(
    {
      ...paperHandlers(papers, search, emit, now, {
        maps,
        embeddingModel: () => workspace.settings.get().embeddingModel,
      }),
      ...runHandlers(options.runs, runStore, emit, now, options.evalStore, follows),
      ...followHandlers(follows, emit, now),
      ...evalHandlers(options.evals, options.evalStore, emit),
      ...(options.datasets ?? noDatasets(workspace, papers, emit, now)).handlers,
      ...sftHandlers({
        db: workspace.db,
        workspaceDir: workspace.dir,
        papers,
        evals: options.evals,
        evalStore: options.evalStore,
        runStore,
        now,
      }),
      ...endpointHandlers(workspace, emit, now, { vault: options.vault }),
      ...(options.training ?? trainingHandlers(workspace.dir, () => undefined, now)),
      ...clusterHandlers({
        workspace,
        vault: options.vault ?? new FileApiKeyVault(workspace.dir),
        papers,
        backend: options.cluster,
        emit,
        now,
      }),
      ...appHandlers(options, emit, now),
    },
    runTextAnswers(runStore),
  );
  return host;
}

/** The app's own commands: what it is, a ping, its settings and the shell's native dialogs. */
function appHandlers(
  options: EngineOptions,
  emit: (event: ApiEvent) => void,
  now: () => number,
): Pick<
  CommandHandlers,
  'app.info' | 'app.ping' | 'settings.get' | 'settings.update' | 'dialog.openPaths'
> {
  const { workspace, shell, dialogs } = options;
  const version = appVersion();
  const knownModelType = options.knownModelType ?? knownModelTypeInProcess;
  return {
    'app.info': () => ({
      name: 'RLM Studio',
      version,
      workspace: workspace.dir,
      shell,
      platform: process.platform,
      capabilities: { nativeDialogs: dialogs !== undefined },
      schemaVersion: schemaVersion(workspace.db),
    }),
    'app.ping': ({ message }) => ({ message, receivedAt: now() }),
    'settings.get': () => workspace.settings.get(),
    'settings.update': async (patch) => {
      // A folder is saved only once it is one: the named error tells the user what is wrong.
      if (typeof patch.embeddingModel === 'string') {
        await checkModelFolder(patch.embeddingModel, knownModelType);
      }
      const settings = workspace.settings.update(patch);
      emit({ kind: 'settings.changed', at: now(), settings });
      return settings;
    },
    'dialog.openPaths': async (request) => {
      if (!dialogs) throw new NativeDialogUnavailableError();
      return dialogs.openPaths(request);
    },
  };
}

/** Dataset commands without model providers: everything but generation works. */
function noDatasets(
  workspace: Workspace,
  papers: PaperLibrary,
  emit: (event: ApiEvent) => void,
  now: () => number,
): DatasetService {
  return datasetService({
    db: workspace.db,
    papers,
    providers: (spec) => {
      throw new Error(`this engine has no model providers to make '${spec}'`);
    },
    emit,
    now,
  });
}
