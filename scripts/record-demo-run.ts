// Records the demo run a new workspace opens with (assets/demo/demo-run.jsonl): the bundled sample
// papers ingested into a throwaway workspace, the scripted model assets/demo/demo.script.json run
// on the real REPL, the run exported. Run from the repository root: `npm run demo:record`.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeEngine } from '../host/index.ts';
import { exportRuns } from '../app/store/run-logs/index.ts';
import { openWorkspace } from '../app/store/index.ts';

const papersDir = 'assets/sample-papers';
const dir = mkdtempSync(join(tmpdir(), 'rlm-demo-record-'));
const workspace = openWorkspace(dir);
const engine = composeEngine({ workspace, shell: 'serve' });
try {
  const pdfs = readdirSync(papersDir)
    .filter((name) => name.endsWith('.pdf'))
    .sort()
    .map((name) => join(papersDir, name));
  const results = await engine.papers.importPaths('sample', pdfs);
  const failed = results.filter((result) => result.outcome !== 'added');
  if (failed.length > 0) throw new Error(`ingest failed: ${JSON.stringify(failed)}`);
  const started = await engine.runs.start({
    set: 'sample',
    question:
      'How does S2ORC turn scholarly PDFs into text, and what does it keep from LaTeX sources?',
    // Relative on purpose: a fork of the demo run, started from the repository, finds the script.
    model: 'scripted:assets/demo/demo.script.json',
    budgets: { maxDepth: 2 },
  });
  const outcome = await started.finished;
  if (outcome.status !== 'done')
    throw new Error(`the demo run ended ${outcome.status}: ${JSON.stringify(outcome.error)}`);
  const summary = engine.runStore.get(started.runId);
  writeFileSync('assets/demo/demo-run.jsonl', exportRuns(engine.runStore, [started.runId]));
  console.log(`recorded ${started.runId}: ${summary.agents} agents, ${summary.turns} turns`);
  console.log(
    JSON.stringify({
      agents: summary.agents,
      turns: summary.turns,
      answerSpans: Array.isArray(outcome.answer) ? outcome.answer.length : 0,
    }),
  );
} finally {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
}
