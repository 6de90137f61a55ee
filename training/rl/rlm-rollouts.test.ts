// Rollouts of the real task through app/rlm: a stored run per rollout and its evidence reward.
// A scripted model and the loop's stand-in REPL keep it fast; the REPL itself is tested in app/repl.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evidencePaper, type EvidenceQuestion } from '../../app/evidence/index.ts';
import { fakeSandbox } from '../../app/rlm/fake-sandbox.test-support.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import type { RolloutEngine } from './local-job.ts';
import { testRolloutEngine } from './rollout-engine.test-support.ts';
import { finalAnswer, rlmEnvironment } from './rlm-rollouts.ts';

let dir: string;
let workspace: Workspace;
let engine: RolloutEngine;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-rollouts-'));
  workspace = openWorkspace(join(dir, 'ws'));
  engine = testRolloutEngine(workspace, {}, (callbacks) => Promise.resolve(fakeSandbox(callbacks)));
  const paper = {
    title: 'Encoders',
    abstract: 'We compare encoders.',
    full_text: [{ section_name: null, paragraphs: ['We use a BiLSTM encoder. It has 2 layers.'] }],
  };
  await engine.papers.importBytes('toy', [
    { name: 'toy.json', data: new TextEncoder().encode(JSON.stringify({ p1: paper })) },
  ]);
});
afterEach(async () => {
  await engine.dispose();
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

const question: EvidenceQuestion = {
  id: 'q1',
  question: 'Which encoder?',
  set: 'toy',
  paperIds: null,
  gold: [{ paperId: 'p1', text: 'We use a BiLSTM encoder.' }],
  metadata: {},
};

function scripted(name: string, answer: string): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({ '0': [`\`\`\`repl\n{"final": ${JSON.stringify([answer])}}\n\`\`\``] }),
  );
  return `scripted:${path}`;
}

describe('rlmEnvironment', () => {
  it('records each rollout as an ordinary run and scores its answer against the gold evidence', async () => {
    const right = scripted('right', 'We use a BiLSTM encoder.');
    const wrong = scripted('wrong', 'It has 2 layers.');
    const env = rlmEnvironment({
      runs: engine.runs,
      store: engine.runStore,
      model: (request) => (request.index === 0 ? right : wrong),
      papersOf: (q) =>
        engine.papers.store
          .texts(q.set)
          .map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText)),
    });
    const first = await env.rollout(question, { step: 1, index: 0, seed: 1 });
    const second = await env.rollout(question, { step: 1, index: 1, seed: 2 });
    expect(engine.runStore.get(first.runId).status).toBe('done');
    expect(finalAnswer(first.events)).toEqual(['We use a BiLSTM encoder.']);
    expect((await env.reward(question, first)).reward).toBe(1);
    expect((await env.reward(question, second)).reward).toBe(0);
    expect(
      engine.runStore
        .list()
        .map((r) => r.id)
        .sort(),
    ).toEqual([first.runId, second.runId].sort());
  });
});
