// app/store/run-logs: run logs in and out: our JSON-lines export, alexzhang13/rlm logs, SkyRL eval
// dumps, DSPy RLM predictions, nano-rlm session folders; imported whole or followed as they grow.
export {
  EmptyRunLogError,
  RunLogLineError,
  RunLogPathError,
  UnknownRunLogFormatError,
} from './errors.ts';
export { parseJsonLines, parseLogText } from './json-lines.ts';
export {
  RunLogFollower,
  type FollowedRun,
  type FollowOptions,
  type FollowState,
} from './follow.ts';
export { importRunLogPath, logSourcesAt, type PathImportReport } from './sources.ts';
export {
  detectFormat,
  importRunLog,
  parseRunLog,
  type ImportedRunSummary,
  type ImportReport,
  type ParsedRunLog,
} from './import.ts';
export { exportRuns } from './export.ts';
export { exportFormatName, exportFormatVersion, exportRunLines } from './studio-run-log.ts';
export { runLogFormats, type ImportedRun, type RunLogFormat } from './types.ts';
export {
  syntheticRunEvents,
  storeSyntheticRun,
  streamSyntheticRun,
  SyntheticRunSizeError,
  type SyntheticRunOptions,
} from './synthetic-run.ts';
