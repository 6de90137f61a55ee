// The recipe's data made in the app, in Chromium against the real `rlm-studio serve` (the sample
// papers, the real Python sandbox, scripted teachers, stories260K as the policy): a teacher writes
// questions over the sample set (one span in no paper and one near-duplicate are dropped, with
// their reasons in the report); a gold span is added by selecting text in the reader and lands on
// the PDF; a question is approved; scripted teacher traces run over the train split, an SFT set is
// made from them (an accepted and a rejected run, each with its reason) and a run opens in the
// debugger; then a Train job picked from the workspace runs SFT and GRPO with both phases on the
// charts. Screenshots in test-artifacts/e2e/.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, screenshot, type OpenedApp } from './harness.ts';

const models = new URL('../../shared/data/models/stories260K/', import.meta.url).pathname;

let opened: OpenedApp;
let page: Page;
let pageErrors: string[] = [];
let dir: string;
let paperId = '';
/** Verbatim passages of that paper: the teacher's gold, another question's, one added by hand. */
let spans: { first: string; second: string; added: { page: number; from: number; to: number } };

/** Text of the reader's page block `index`, `from` for `length` characters, trimmed. */
async function pageText(index: number, from: number, length: number): Promise<string> {
  const text = await page
    .getByTestId('paper-text')
    .evaluate((pre, [i, f, n]) => pre.children[i]?.textContent.slice(f, f + n) ?? '', [
      index,
      from,
      length,
    ] as const);
  return text.trim();
}

/** Selects characters `from`..`to` of the reader's page block `index`, as a user's drag would. */
async function selectInText(index: number, from: number, to: number): Promise<void> {
  await page.getByTestId('paper-text').evaluate(
    (pre, [i, f, t]) => {
      const node = pre.children[i]?.firstChild;
      if (!node) throw new Error('no text on that page');
      const range = document.createRange();
      range.setStart(node, f);
      range.setEnd(node, t);
      const selection = document.getSelection();
      selection?.removeAllRanges();
      selection?.addRange(range);
    },
    [index, from, to] as const,
  );
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-datasets-'));
  opened = await openApp({ sample: true });
  ({ page, pageErrors } = opened);
  // A model the workspace knows: the Train view offers it first.
  const folder = join(opened.app.workspace, 'models', 'stories');
  mkdirSync(folder, { recursive: true });
  copyFileSync(join(models, 'stories260K.bin'), join(folder, 'stories260K.bin'));
  copyFileSync(join(models, 'tok512.bin'), join(folder, 'tok512.bin'));
  // The paper the teacher writes about, and passages of it, read from the reader.
  await page.goto(`${opened.app.origin}/#/papers?set=sample`);
  await page.getByTestId('paper-row').filter({ hasText: 'S2ORC' }).click({ timeout: 60_000 });
  await page.getByTestId('paper-reader').waitFor();
  paperId = (await page.getByTestId('paper-reader').getAttribute('data-paper')) ?? '';
  await page.getByTestId('paper-text').waitFor();
  spans = {
    first: await pageText(1, 200, 140),
    second: await pageText(2, 300, 140),
    added: { page: 3, from: 100, to: 260 },
  };
  const question = (q: string, text: string) => ({ question: q, evidence: [{ paperId, text }] });
  const reply = {
    questions: [
      question('What does the first passage of the corpus description say?', spans.first),
      question('Which hardware trained the parser?', 'This sentence is in no paper at all.'),
      question('What does the first passage of the corpus description say', spans.first),
      question('How are the citations linked across papers?', spans.second),
    ],
  };
  writeFileSync(
    join(dir, 'teacher.json'),
    JSON.stringify({ delayMs: 400, responses: { '0:dataset': [JSON.stringify(reply)] } }),
  );
  // The teacher RLM answers every question with the first passage: right once, wrong once.
  writeFileSync(
    join(dir, 'rlm.json'),
    JSON.stringify({
      '0': [`\`\`\`repl\nFINAL_VAR([${JSON.stringify(spans.first)}])\n\`\`\``],
    }),
  );
}, 120_000);
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

const editor = () => page.getByTestId('question-editor');

describe('datasets view', () => {
  it('generates a dataset with a teacher and reports what it dropped and why', async () => {
    expect(paperId).not.toBe('');
    expect(spans.first.length).toBeGreaterThan(100);
    await page.getByTestId('nav-datasets').click();
    await page.getByTestId('view-datasets').waitFor();
    await page.getByTestId('generate-set').selectOption('sample');
    await page.getByTestId('generate-teacher').fill(`scripted:${join(dir, 'teacher.json')}`);
    await page.getByTestId('generate-name').fill('sample-questions');
    await page.getByTestId('generate-validation').fill('0');
    await page.getByTestId('generate-start').click();
    await expect
      .poll(() => page.getByTestId('datasets-notice').textContent())
      .toContain('papers grouped by TF-IDF');
    const item = page.locator('[data-testid="dataset-item"][data-name="sample-questions"]');
    await expect.poll(() => item.textContent(), { timeout: 30_000 }).toContain('2 questions');
    await expect.poll(() => page.getByTestId('dataset-progress').count()).toBe(0);
    await page.getByTestId('dataset-tab-report').click();
    const dropped = page.getByTestId('report-dropped');
    // The span in no paper (and so the question, with none of its evidence located) and the
    // near-duplicate, each with its reason.
    await expect.poll(() => dropped.count()).toBe(3);
    expect(await dropped.allTextContents()).toEqual([
      expect.stringContaining('is not in paper'),
      expect.stringContaining('none of its evidence could be located'),
      expect.stringContaining('a near-duplicate of'),
    ]);
    await screenshot(page, 'datasets-report');
  });

  it('searches and filters the questions', async () => {
    await page.getByTestId('dataset-tab-questions').click();
    const rows = page.getByTestId('question-row');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByTestId('questions-search').fill('citations');
    await page.getByTestId('questions-search').press('Enter');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByTestId('questions-search').fill('');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByTestId('questions-source').selectOption('hand');
    await expect.poll(() => rows.count()).toBe(0);
    await page.getByTestId('questions-source').selectOption('teacher');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByTestId('questions-source').selectOption('');
  });

  it('adds a gold span by selecting text, shows it on the PDF, and approves the question', async () => {
    await page.getByTestId('question-row').filter({ hasText: 'first passage' }).click();
    await editor().waitFor();
    const gold = page.getByTestId('gold-span');
    await expect.poll(() => gold.count()).toBe(1);
    const reader = page.getByTestId('gold-reader');
    await expect.poll(() => reader.getAttribute('data-paper')).toBe(paperId);
    const boxes = reader.getByTestId('pdf-highlight');
    await expect.poll(() => boxes.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    const before = await boxes.count();
    const { page: block, from, to } = spans.added;
    await selectInText(block, from, to);
    await page.getByTestId('gold-add').click();
    await expect.poll(() => gold.count()).toBe(2);
    // The new span is drawn on its own PDF page.
    await expect.poll(() => boxes.count(), { timeout: 30_000 }).toBeGreaterThan(before);
    const pages = await boxes.evaluateAll((all) => all.map((b) => b.getAttribute('data-page')));
    expect(pages).toContain(String(block));
    expect(await editor().textContent()).toContain('edited by hand');
    await page.getByTestId('question-approve').click();
    await expect.poll(() => editor().getAttribute('data-status')).toBe('approved');
    await screenshot(page, 'datasets-gold-span-on-pdf');
    await page.getByTestId('questions-status').selectOption('approved');
    await expect.poll(() => page.getByTestId('question-row').count()).toBe(1);
    await page.getByTestId('questions-status').selectOption('');
    // Changed by hand, it counts as written by hand now.
    await page.getByTestId('questions-source').selectOption('hand');
    await expect.poll(() => page.getByTestId('question-row').count()).toBe(1);
    await page.getByTestId('questions-source').selectOption('');
  });

  it('runs teacher traces and makes an SFT set with each run’s reason', async () => {
    await page.getByTestId('dataset-tab-traces').click();
    await page.getByTestId('traces-teacher').fill(`scripted:${join(dir, 'rlm.json')}`);
    await page.getByTestId('traces-start').click();
    await page
      .locator('[data-testid="traces-eval"][data-status="done"]')
      .waitFor({ timeout: 120_000 });
    await page.getByTestId('sft-set-name').fill('cold start');
    await page.getByTestId('sft-set-make').click();
    const runs = page.getByTestId('sft-set-run');
    await expect.poll(() => runs.count()).toBe(2);
    expect(
      await runs.evaluateAll((all) => all.map((r) => r.getAttribute('data-accepted'))),
    ).toEqual(['true', 'false']);
    expect(await runs.nth(1).textContent()).toContain('span F1 is 0, not above 0');
    expect(await page.getByTestId('sft-set').textContent()).toContain('cold start');
    await screenshot(page, 'datasets-sft-set');
    await runs.first().getByTestId('sft-run-open').click();
    await page.getByTestId('view-run').waitFor();
    await page.goBack();
    await page.getByTestId('view-datasets').waitFor();
  }, 180_000);

  it('trains SFT then GRPO from the Train view on what the workspace holds', async () => {
    await page.getByTestId('nav-train').click();
    await page.getByTestId('view-train').waitFor();
    const stories = join(opened.app.workspace, 'models', 'stories', 'stories260K.bin');
    await expect.poll(() => page.getByTestId('train-base-model').inputValue()).toBe(stories);
    expect(await page.getByTestId('train-base-model-pick').textContent()).toContain('demo');
    await page.getByTestId('train-dataset-source').selectOption('sample-questions');
    await expect
      .poll(() => page.getByTestId('train-dataset-note').textContent())
      .toContain('2 questions');
    await page.getByTestId('train-sft-set').selectOption('cold start');
    await page.getByTestId('train-sftEpochs').fill('2');
    await page.getByTestId('train-name').fill('sft then grpo');
    await page.getByTestId('train-steps').fill('1');
    await page.getByTestId('train-groupSize').fill('2');
    await page.getByTestId('train-batchSize').fill('1');
    await page.getByTestId('train-maxTurns').fill('1');
    await page.getByTestId('train-maxTokensPerTurn').fill('16');
    await page.getByTestId('train-rank').fill('2');
    await page.getByTestId('train-targets').fill('wq,wv');
    await page.getByTestId('train-checkpointEvery').fill('1');
    await page.getByLabel('reward').selectOption('span-f1');
    await page.getByTestId('train-launch').click();
    const panel = page.getByTestId('train-job-panel');
    try {
      await page
        .locator('[data-testid="train-job-panel"][data-status="done"]')
        .waitFor({ timeout: 240_000 });
    } catch (error) {
      await screenshot(page, 'train-sft-then-grpo-failed');
      throw new Error(`${String(error)}; the panel says: ${String(await panel.textContent())}`, {
        cause: error,
      });
    }
    await expect
      .poll(() => page.getByTestId('train-job-sft').getAttribute('data-sft-steps'))
      .toBe('2');
    expect(await page.getByTestId('train-job-progress').textContent()).toContain('GRPO step 1/1');
    // One accepted run of one turn, two epochs: two SFT steps, then GRPO's on the same axis, the
    // edge between them marked on every chart.
    expect(await page.getByTestId('train-chart-loss').getAttribute('data-phase-edge')).toBe('2.5');
    await page.getByTestId('train-chart-loss').scrollIntoViewIfNeeded();
    await screenshot(page, 'train-sft-then-grpo');
  }, 300_000);

  it('writes a dataset by hand: a question over a paper, its gold span selected on it', async () => {
    await page.getByTestId('nav-datasets').click();
    await page.getByTestId('new-dataset-name').fill('by hand');
    await page.getByTestId('new-dataset-form').getByRole('button', { name: 'Create' }).click();
    await page.locator('[data-testid="dataset-panel"][data-name="by hand"]').waitFor();
    await page.getByTestId('add-question-open').click();
    await page.getByTestId('add-question-text').fill('Which sources does the corpus draw on?');
    await page.locator('label', { hasText: 'S2ORC' }).getByTestId('add-question-paper').check();
    await page.getByTestId('add-question-submit').click();
    await editor().waitFor();
    expect(await editor().textContent()).toContain('written by hand');
    await expect.poll(() => page.getByTestId('gold-span').count()).toBe(0);
    await page.getByTestId('gold-reader').waitFor();
    await selectInText(1, 40, 160);
    await page.getByTestId('gold-add').click();
    await expect.poll(() => page.getByTestId('gold-span').count()).toBe(1);
    expect(await page.getByTestId('question-row').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });
});
