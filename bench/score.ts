// `npm run bench:score`: every QASPER test question (1,451) scored with its gold evidence as the
// prediction, through the same path as `rlm-studio score` (load the release tarball, locate every
// span, character-span F1, official Evidence-F1). Expected: Evidence-F1 1.0 and pooled span F1 1.0
// in under 10 s. Then the multi-paper variant and a noisy copy (lowercased, spaces collapsed) for
// the location methods. Prints figures, then one JSON line.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  evidencePaper,
  loadDataset,
  PaperIndex,
  paperLookup,
  parseQasperDataset,
  scoreDataset,
} from '../app/evidence/index.ts';
import { PaperLibrary } from '../app/papers/index.ts';
import { openWorkspace } from '../app/store/index.ts';

const tarball = new URL(
  '../../shared/data/qasper/qasper-test-and-evaluator-v0.3.tgz',
  import.meta.url,
).pathname;

const started = performance.now();
const dataset = await loadDataset(tarball, 'qasper');
const loaded = performance.now();
const gold = new Map(dataset.questions.map((q) => [q.id, q.gold]));
const { summary } = scoreDataset(dataset.questions, gold, paperLookup(dataset, null));
const finished = performance.now();
const totalS = (finished - started) / 1000;
console.log(
  `QASPER test, gold as prediction: ${summary.n} questions, Evidence-F1 ${summary.evidence_f1?.toFixed(6) ?? '-'}, ` +
    `pooled span F1 ${summary.pooled.f1.toFixed(6)}, mean span F1 ${summary.span_f1.toFixed(6)} over ${summary.spanScored}`,
);
console.log(
  `  load ${((loaded - started) / 1000).toFixed(2)} s + score ${((finished - loaded) / 1000).toFixed(2)} s = ${totalS.toFixed(2)} s (target < 10 s)`,
);

const multiStarted = performance.now();
const multi = await loadDataset(tarball, 'qasper', { multiPaper: true });
const multiScore = scoreDataset(
  multi.questions,
  new Map(multi.questions.map((q) => [q.id, q.gold.map((span) => ({ text: span.text }))])),
  paperLookup(multi, null),
).summary;
const multiS = (performance.now() - multiStarted) / 1000;
console.log(
  `multi-paper (10 papers each), gold as bare strings: Evidence-F1 ${multiScore.evidence_f1?.toFixed(6) ?? '-'}, pooled span F1 ${multiScore.pooled.f1.toFixed(6)} in ${multiS.toFixed(2)} s`,
);

const noisyStarted = performance.now();
const noisy = scoreDataset(
  dataset.questions,
  new Map(
    dataset.questions.map((q) => [
      q.id,
      q.gold.map((span) => ({ ...span, text: span.text.toLowerCase().replace(/\s+/g, ' ') })),
    ]),
  ),
  paperLookup(dataset, null),
).summary;
const noisyS = (performance.now() - noisyStarted) / 1000;
console.log(
  `noisy copies: located by ${JSON.stringify(noisy.methods)}, unlocated ${noisy.unlocated.predicted}; Evidence-F1 ${noisy.evidence_f1?.toFixed(4) ?? '-'}, pooled span F1 ${noisy.pooled.f1.toFixed(4)} in ${noisyS.toFixed(2)} s`,
);

// QASPER's evidence (S2ORC text) located in our PDF text of the two QASPER papers in papers/.
const shared = new URL('../../shared/data/', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'bench-score-'));
const workspace = openWorkspace(scratch);
const library = new PaperLibrary(workspace.db, { poolSize: 2 });
await library.importPaths('pdf', [
  join(shared, 'papers', '1602.03483v1.pdf'),
  join(shared, 'papers', '1803.02155.pdf'),
]);
const subsetPath = join(shared, 'qasper', 'qasper_test_v0.3_subset_papers_with_pdf.json');
const subset = parseQasperDataset(subsetPath, new Uint8Array(readFileSync(subsetPath)));
const pdfMethods: Record<string, number> = {};
let pdfSpans = 0;
const pdfMisses: string[] = [];
for (const paper of library.store.texts('pdf')) {
  const index = new PaperIndex(
    evidencePaper(paper.id, paper.title, paper.abstract, paper.fullText),
  );
  const cited = new Set(
    subset.questions
      .filter((q) => q.paperIds?.[0] === paper.id)
      .flatMap((q) => (q.annotations ?? []).flat()),
  );
  for (const text of cited) {
    const found = index.locate(text);
    const key = found ? found.method : 'unlocated';
    if (!found) pdfMisses.push(text.slice(0, 60));
    pdfMethods[key] = (pdfMethods[key] ?? 0) + 1;
    pdfSpans++;
  }
}
await library.dispose();
workspace.close();
rmSync(scratch, { recursive: true, force: true });
const pdfLocated = pdfSpans - (pdfMethods.unlocated ?? 0);
console.log(
  `QASPER evidence in PDF text (1602.03483, 1803.02155): ${pdfLocated}/${pdfSpans} located ${JSON.stringify(pdfMethods)}`,
);
for (const miss of pdfMisses) console.log(`  unlocated: ${JSON.stringify(miss)}`);

console.log(
  JSON.stringify({
    questions: summary.n,
    evidence_f1: summary.evidence_f1,
    span_f1_pooled: summary.pooled.f1,
    span_f1_mean: summary.span_f1,
    gold_unlocated: summary.unlocated.gold,
    total_s: totalS,
    multi_paper_evidence_f1: multiScore.evidence_f1,
    multi_paper_span_f1_pooled: multiScore.pooled.f1,
    multi_paper_total_s: multiS,
    noisy_evidence_f1: noisy.evidence_f1,
    noisy_span_f1_pooled: noisy.pooled.f1,
    noisy_unlocated: noisy.unlocated.predicted,
    noisy_s: noisyS,
    pdf_evidence_spans: pdfSpans,
    pdf_evidence_located: pdfLocated,
  }),
);
