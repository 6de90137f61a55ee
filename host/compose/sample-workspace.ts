// First start: a new workspace gets the bundled sample paper set (the CC-BY papers in
// assets/sample-papers) and a demo run recorded over it with the scripted model
// (assets/demo/demo-run.jsonl), so a new user sees a whole tree before configuring a model.
// Idempotent: it runs once per workspace (a marker), and only on a workspace with no sets and no
// runs; a user who deletes the sample set does not get it back.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ApiEvent } from '../../app/api/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import { importRunLog } from '../../app/store/run-logs/index.ts';
import { hasMarker, setMarker, type RunStore, type Workspace } from '../../app/store/index.ts';

export const sampleSetName = 'sample';
const marker = 'sample-workspace';

export function defaultAssetsDir(): string {
  return fileURLToPath(new URL('../../assets/', import.meta.url));
}

export interface SampleInstall {
  installed: boolean;
  papers: number;
  runIds: string[];
}

const inFlight = new WeakMap<Workspace, Promise<SampleInstall>>();

export function installSampleWorkspace(options: {
  workspace: Workspace;
  papers: PaperLibrary;
  runStore: RunStore;
  emit?: (event: ApiEvent) => void;
  assetsDir?: string;
  now?: () => number;
}): Promise<SampleInstall> {
  const running = inFlight.get(options.workspace);
  if (running) return running;
  const work = install(options).finally(() => inFlight.delete(options.workspace));
  inFlight.set(options.workspace, work);
  return work;
}

async function install(
  options: Parameters<typeof installSampleWorkspace>[0],
): Promise<SampleInstall> {
  const { workspace, papers, runStore } = options;
  const now = options.now ?? Date.now;
  const skipped = { installed: false, papers: 0, runIds: [] };
  if (hasMarker(workspace.db, marker)) return skipped;
  if (papers.sets().length > 0 || runStore.list({ limit: 1 }).length > 0) {
    setMarker(workspace.db, marker);
    return skipped;
  }
  const assets = options.assetsDir ?? defaultAssetsDir();
  const dir = join(assets, 'sample-papers');
  // A build without the bundled sample (a test bundle) offers nothing and tries again next start.
  if (!existsSync(dir)) return skipped;
  const pdfs = readdirSync(dir)
    .filter((name) => name.toLowerCase().endsWith('.pdf'))
    .sort()
    .map((name) => join(dir, name));
  const results = await papers.importPaths(sampleSetName, pdfs);
  const failed = results.filter((result) => result.outcome === 'failed');
  if (failed.length > 0)
    throw new Error(
      `The bundled sample paper set did not import: ${failed.map((f) => `${f.input}: ${f.error?.message ?? ''}`).join('; ')}`,
    );
  options.emit?.({ kind: 'papers.setsChanged', at: now() });
  // The recording names its script relative to the repository; here it becomes this install's own
  // path, so forking the demo run (whose live model defaults to the parent's) finds the script.
  const recordedModel = JSON.stringify(`scripted:assets/demo/demo.script.json`);
  const localModel = JSON.stringify(`scripted:${join(assets, 'demo', 'demo.script.json')}`);
  const report = importRunLog(
    runStore,
    readFileSync(join(assets, 'demo', 'demo-run.jsonl'), 'utf8').replaceAll(
      `"model":${recordedModel}`,
      `"model":${localModel}`,
    ),
    {
      format: 'ours',
      source: 'the bundled demo run',
      storeAs: 'demo',
    },
  );
  const runIds = report.runs.map((run) => run.runId);
  options.emit?.({ kind: 'runs.changed', at: now(), change: 'created', runIds });
  setMarker(workspace.db, marker);
  return { installed: true, papers: results.length, runIds };
}
