// app/store: the workspace on disk (SQLite through node:sqlite).
export { openDatabase, transaction, integrityCheck, WorkspaceDatabaseError } from './database.ts';
export {
  migrate,
  migrations,
  schemaVersion,
  WorkspaceTooNewError,
  type Migration,
} from './migrations.ts';
export { SettingsStore, defaultSettings } from './settings.ts';
export {
  openWorkspace,
  checkWorkspace,
  defaultWorkspaceDir,
  databaseFileName,
  WorkspaceCorruptError,
  type Workspace,
  type PlatformContext,
} from './workspace.ts';
export {
  RunStore,
  RunWriter,
  RunNotFoundError,
  RunIdTakenError,
  replayLookup,
  type RunSummary,
  type StoredRun,
} from './runs.ts';
export { EvalStore, EvalNotFoundError, type NewEval } from './evals.ts';
export { hasMarker, setMarker } from './markers.ts';
export {
  DatasetStore,
  DatasetNotFoundError,
  DatasetNameTakenError,
  QuestionNotFoundError,
  sourceOf,
  type QuestionFilter,
  type QuestionEdit,
} from './datasets.ts';
export {
  SftSetStore,
  SftSetNotFoundError,
  SftSetNameTakenError,
  type NewSftSet,
} from './sft-sets.ts';
