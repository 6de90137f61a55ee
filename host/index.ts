// host/: the composition layer, the one place that knows both app/ and training/. It composes the
// engine (compose/), answers app/api's commands (commands/), supervises the child processes that
// training/ and app/ declare (children/), and carries the engine to its users: the `rlm-studio`
// command (cli/), the browser (serve/) and the desktop shell (electron/, which imports this).
export {
  createHost,
  type Host,
  type CommandHandlers,
  type TextAnswers,
} from './commands/command-host.ts';
export {
  createEngineHost,
  appVersion,
  NativeDialogUnavailableError,
  type DialogService,
  type EngineOptions,
} from './commands/engine-host.ts';
export {
  savedClusterConnection,
  readRayJobFile,
  ClusterAddressMissingError,
  ClusterJobFileError,
  ClusterUnavailableError,
} from './commands/cluster-state.ts';
export { composeEngine, type ComposeOptions, type Engine } from './compose/compose.ts';
export {
  installSampleWorkspace,
  defaultAssetsDir,
  sampleSetName,
  type SampleInstall,
} from './compose/sample-workspace.ts';
export {
  localModelProcesses,
  LocalModelProcessError,
  type LocalModelProcesses,
} from './children/local-model-process.ts';
// What the shells compose with beside the engine (electron/ imports only this layer and app/api).
export { openWorkspace, type Workspace } from '../app/store/index.ts';
export { ApiKeyVaultError, FileApiKeyVault, type ApiKeyVault } from '../app/models/index.ts';
