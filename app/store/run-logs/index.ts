// app/store/run-logs: run logs in and out: our JSON-lines export, alexzhang13/rlm logs, SkyRL eval dumps.
export { EmptyRunLogError, RunLogLineError, UnknownRunLogFormatError } from './errors.ts';
export {
  detectFormat,
  importRunLog,
  parseJsonLines,
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
