// Exporting runs as our JSON lines (see ours.ts): what `rlm-studio export` and runs.export write.
import type { RunStore } from '../index.ts';
import { exportRunLines } from './studio-run-log.ts';

export function exportRuns(store: RunStore, runIds: readonly string[]): string {
  return runIds.map((id) => exportRunLines(store.get(id), store.events(id))).join('');
}
