// The Eval view in Chromium against the real `rlm-studio serve` (real Python sandbox, scripted model
// and judge): launch an eval of four QASPER questions, watch the table fill and the progress reach
// 4/4, sort and filter it, drill into a question and see its spans against the gold on the paper.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, openApp, type OpenedApp } from './harness.ts';
import { watchCount } from './watch-count.ts';

const qasper = new URL(
  '../../shared/data/qasper/qasper_test_v0.3_subset_papers_with_pdf.json',
  import.meta.url,
).pathname;

let opened: OpenedApp;
let page: Page;
let pageErrors: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-e2e-eval-'));
  // The model returns the first passage after each paper's abstract: some gold, some not.
  writeFileSync(
    join(dir, 'model.json'),
    JSON.stringify({
      delayMs: 300,
      responses: {
        '0': [
          '```repl\ntext = list(context.values())[0]\nstart = text.find("Introduction")\nFINAL_VAR([text[start:start + 1500]])\n```',
        ],
      },
    }),
  );
  writeFileSync(
    join(dir, 'judge.json'),
    JSON.stringify({ '0:judge': ['{"precision": 4, "recall": 6, "reasoning": "Some of it."}'] }),
  );
  opened = await openApp();
  ({ page, pageErrors } = opened);
});
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('eval view', () => {
  it('launches an eval and fills the scores table live to 4/4', async () => {
    await page.getByTestId('nav-eval').click();
    await page.getByTestId('view-eval').waitFor();
    await page.getByTestId('eval-dataset').fill(qasper);
    await page.getByTestId('eval-format').selectOption('qasper');
    await page.getByTestId('eval-model').fill(`scripted:${join(dir, 'model.json')}`);
    await page.getByTestId('eval-judge').fill(`scripted:${join(dir, 'judge.json')}`);
    await page.getByTestId('eval-limit').fill('4');
    await page.getByTestId('eval-concurrency').fill('2');
    await page.getByTestId('eval-start').click();
    // The list of evals shows the new one, and stays up while it reloads when the eval finishes.
    await page.getByTestId('eval-list').waitFor();
    const listed = await watchCount(page, 'eval-list');
    await page
      .locator('[data-testid="eval-panel"][data-status="done"]')
      .waitFor({ timeout: 120_000 });
    expect(await listed.fewest()).toBe(1);
    expect(await page.getByTestId('eval-progress-text').textContent()).toMatch(/^4\/4 · done/);
    expect(await page.getByTestId('score-row').count()).toBe(4);
    expect(await page.getByTestId('report-rubric').textContent()).toBe('0.500');
    expect(await page.getByTestId('report-evidence-f1').textContent()).toMatch(/^\d\.\d{3}$/);
    expect(new URL(page.url()).hash).toMatch(/^#\/eval\?eval=eval-/);
  }, 150_000);

  it('sorts and filters the table', async () => {
    const firstQuestion = () => page.getByTestId('score-row').first().getAttribute('data-question');
    const bySeq = await firstQuestion();
    await page.getByTestId('sort-seq').click(); // descending
    expect(await firstQuestion()).not.toBe(bySeq);
    await page.getByTestId('sort-spanF1').click();
    await page.getByTestId('scores-filter').fill('no question says this');
    await page.locator('[data-testid="scores-count"]', { hasText: '0 of 4' }).waitFor();
    await page.getByTestId('scores-filter').fill('');
    await page.locator('[data-testid="scores-count"]', { hasText: '4 of 4' }).waitFor();
  });

  it('drills into a question: spans against the gold on the paper, and its run', async () => {
    await page.getByTestId('score-row').first().click();
    await page.getByTestId('eval-question').waitFor();
    await page.getByTestId('eval-paper').waitFor();
    const counts = await page
      .locator('[data-testid="eval-legend"] li')
      .evaluateAll((items) =>
        items.map((item) => [
          item.getAttribute('data-kind') ?? '',
          item.getAttribute('data-chars') ?? '0',
        ]),
      );
    const chars = new Map(counts.map(([kind, n]) => [kind, Number(n)]));
    expect((chars.get('hit') ?? 0) + (chars.get('extra') ?? 0)).toBeGreaterThan(0);
    const tones = await page.evaluate(() =>
      ['green', 'rose', 'amber'].filter((tone) => CSS.highlights.has(`paper-hl-${tone}`)),
    );
    expect(tones.length).toBeGreaterThan(0);
    expect(await page.getByTestId('open-run').getAttribute('href')).toMatch(/#\/run\?run=/);
    expect(await page.getByTestId('eval-judge-verdict').textContent()).toContain('precision 4');
    await screenshot(page, 'eval');
    expect(pageErrors).toEqual([]);
  });
});
