// app/host: binds app/api commands to the engine's services; transports carry frames to it.
export { createHost, type Host, type CommandHandlers, type TextAnswers } from './host.ts';
export {
  createEngineHost,
  appVersion,
  NativeDialogUnavailableError,
  type DialogService,
  type EngineOptions,
} from './engine.ts';
export { composeEngine, type ComposeOptions, type Engine } from './compose.ts';
export {
  localModelProcesses,
  LocalModelProcessError,
  type LocalModelProcesses,
} from './local-model-process.ts';
export {
  installSampleWorkspace,
  defaultAssetsDir,
  sampleSetName,
  type SampleInstall,
} from './sample-workspace.ts';
export {
  clusterHandlers,
  savedClusterConnection,
  readRayJobFile,
  ClusterAddressMissingError,
  ClusterJobFileError,
  ClusterUnavailableError,
  type ClusterBackend,
  type ClusterConnection,
  type RayJobsPort,
} from './cluster-handlers.ts';
