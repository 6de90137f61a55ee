// Our Evidence-F1 against QASPER's official evaluator: qasper_evaluator.py is taken from the
// release tarball and run with python3 on generated predictions (gold, partial, wrong, normalised
// copies); each figure must agree to 1e-9. The spans go through our whole path (location, mapping
// to paragraphs) and the evaluator sees the evidence strings that path produced.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paperLookup } from './load.ts';
import { parseQasperDataset } from './qasper-dataset.ts';
import type { EvidenceDataset, EvidenceSpan } from './question.ts';
import { scoreDataset } from './score.ts';
import { readTar } from './tar-archive.ts';
import { mulberry32 } from '../random/mulberry32.ts';

const tarball = new URL(
  '../../../shared/data/qasper/qasper-test-and-evaluator-v0.3.tgz',
  import.meta.url,
).pathname;
const python = spawnSync('python3', ['--version']).status === 0;

let dir: string;
let dataset: EvidenceDataset;
let textOnly: EvidenceDataset;

function official(predictions: Map<string, string[]>, flags: string[] = []): number {
  const file = join(dir, 'predictions.jsonl');
  writeFileSync(
    file,
    [...predictions]
      .map(([id, evidence]) =>
        JSON.stringify({ question_id: id, predicted_answer: '', predicted_evidence: evidence }),
      )
      .join('\n') + '\n',
  );
  const run = spawnSync(
    'python3',
    [
      join(dir, 'qasper_evaluator.py'),
      '--predictions',
      file,
      '--gold',
      join(dir, 'gold.json'),
      ...flags,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 24 },
  );
  if (run.status !== 0) throw new Error(`qasper_evaluator.py failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { 'Evidence F1': number })['Evidence F1'];
}

function compare(
  data: EvidenceDataset,
  predictions: Map<string, EvidenceSpan[]>,
  flags: string[] = [],
): number {
  const { scores, summary } = scoreDataset(data.questions, predictions, paperLookup(data, null));
  const cited = new Map(
    scores.flatMap((score) => (score.predicted ? [[score.id, score.evidence ?? []] as const] : [])),
  );
  const theirs = official(cited, flags);
  expect(summary.evidence_f1).not.toBeNull();
  expect(Math.abs((summary.evidence_f1 ?? NaN) - theirs)).toBeLessThan(1e-9);
  return theirs;
}

describe.skipIf(!python)('QASPER Evidence-F1 equals the official evaluator', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'rlm-qasper-eval-'));
    const data = new Uint8Array(readFileSync(tarball));
    for (const file of readTar(tarball, data)) {
      if (file.name.endsWith('qasper_evaluator.py'))
        writeFileSync(join(dir, 'qasper_evaluator.py'), file.data);
      if (file.name.endsWith('.json')) writeFileSync(join(dir, 'gold.json'), file.data);
    }
    dataset = parseQasperDataset(tarball, data);
    textOnly = parseQasperDataset(tarball, data, { textEvidenceOnly: true });
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('on the gold evidence', () => {
    const gold = new Map(dataset.questions.map((q) => [q.id, q.gold]));
    expect(compare(dataset, gold)).toBe(1);
  });

  it('on partial predictions: first sentences, extra paragraphs, empty and missing rows', () => {
    const next = mulberry32(7);
    const lookup = paperLookup(dataset, null);
    const predictions = new Map<string, EvidenceSpan[]>();
    for (const question of dataset.questions) {
      const roll = next();
      if (roll < 0.1) continue; // missing row: the evaluator counts 0
      if (roll < 0.2) {
        predictions.set(question.id, []);
        continue;
      }
      const kept = question.gold.slice(0, Math.ceil(question.gold.length / 2));
      const spans: EvidenceSpan[] = kept.map((span) => ({
        ...span,
        // A first sentence of the paragraph: located inside it, so it cites that paragraph.
        text: span.text.split(/(?<=\.) /)[0] ?? span.text,
      }));
      const units = lookup(question)[0]?.units ?? [];
      const extra = units[Math.floor(next() * units.length)];
      const paper = lookup(question)[0];
      if (extra && paper && next() < 0.5)
        spans.push({ paperId: paper.id, text: paper.text.slice(extra.start, extra.end) });
      predictions.set(question.id, spans);
    }
    const figure = compare(dataset, predictions);
    expect(figure).toBeGreaterThan(0.2);
    expect(figure).toBeLessThan(0.9);
  });

  it('on wrong predictions: bare strings from paragraphs nobody cited', () => {
    const next = mulberry32(11);
    const lookup = paperLookup(dataset, null);
    const predictions = new Map<string, EvidenceSpan[]>();
    for (const question of dataset.questions) {
      const paper = lookup(question)[0];
      const cited = new Set(question.annotations?.flat());
      const others = (paper?.units ?? []).filter((unit) => !cited.has(unit.evidence));
      const pick = others[Math.floor(next() * others.length)];
      predictions.set(
        question.id,
        pick && paper ? [{ text: paper.text.slice(pick.start, pick.end) }] : [],
      );
    }
    expect(compare(dataset, predictions)).toBeLessThan(0.1);
  });

  it('on normalised copies (lowercased, spaces collapsed) and with --text_evidence_only', () => {
    const predictions = new Map(
      dataset.questions.map((q) => [
        q.id,
        q.gold.map((span) => ({ ...span, text: span.text.toLowerCase().replace(/\s+/g, ' ') })),
      ]),
    );
    const figure = compare(dataset, predictions);
    expect(figure).toBeGreaterThan(0.9);
    const gold = new Map(textOnly.questions.map((q) => [q.id, q.gold]));
    expect(compare(textOnly, gold, ['--text_evidence_only'])).toBeGreaterThan(0.99);
  });
});

it.skipIf(python)('skipped the official evaluator comparison: python3 is not on PATH', () => {
  expect(python).toBe(false);
});
