// The Train view in Chromium against the real `rlm-studio serve`: launch a short real training job
// (the toy task: the trainer, its process, checkpoints and charts are all real; the policy is the
// model-free bigram), watch the charts fill in and finish, open a step's GRPO groups, pause and
// resume a long job, and overlay two jobs.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, openApp, type OpenedApp } from './harness.ts';
import { watchCount } from './watch-count.ts';

let opened: OpenedApp;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  opened = await openApp();
  ({ page, pageErrors } = opened);
});
afterAll(async () => {
  await opened.close();
});

async function launch(name: string, steps: number, validateEvery = 0): Promise<void> {
  await page.getByTestId('train-name').fill(name);
  await page.getByTestId('train-base-model').fill('toy:bigram');
  await page.getByTestId('train-steps').fill(String(steps));
  await page.getByTestId('train-checkpointEvery').fill('5');
  await page.getByTestId('train-batchSize').fill('2');
  await page.getByTestId('train-learningRate').fill('4');
  await page.getByTestId('train-beta').fill('0');
  await page.getByTestId('train-validateEvery').fill(String(validateEvery));
  await page.getByTestId('train-launch').click();
}

const panel = () => page.getByTestId('train-job-panel');

async function waitForStatus(status: string, name: string): Promise<void> {
  try {
    await page
      .locator(`[data-testid="train-job-panel"][data-status="${status}"]`)
      .waitFor({ timeout: 30_000 });
  } catch (error) {
    await screenshot(page, `train-${name}-failed`);
    const header = await panel().locator('header').textContent();
    throw new Error(`${String(error)}; the panel says: ${String(header)}`, { cause: error });
  }
}

describe('train view', () => {
  it('launches a job and shows its charts filling in until it is done', async () => {
    await page.getByTestId('nav-train').click();
    await page.getByTestId('view-train').waitFor();
    await launch('first', 20, 5);
    await page
      .locator('[data-testid="train-job-panel"][data-status="done"]')
      .waitFor({ timeout: 60_000 });
    await expect
      .poll(() => page.getByTestId('train-job-progress').textContent())
      .toContain('step 20/20');
    const reward = page.getByTestId('train-chart-reward');
    await reward.locator('canvas').waitFor();
    // The legend names the raw and the smoothed reward and the band's edges.
    const legend = await reward.locator('.u-legend').textContent();
    expect(legend).toContain('reward (raw)');
    expect(legend).toContain('reward (smoothed)');
    expect(legend).toContain('max');
    await page.getByTestId('train-smoothing').fill('0.9');
    await page.getByTestId('train-axis').selectOption('relative');
    await reward.locator('canvas').waitFor();
    const groups = page.getByTestId('train-groups');
    await groups.waitFor();
    expect(await groups.getAttribute('data-step')).toBe('20');
    expect(await groups.locator('a[href^="#/run?run="]').count()).toBe(16);
    await screenshot(page, 'train-done');
  }, 90_000);

  it('charts what GRPO users read first and exports the metrics', async () => {
    // Each chart is drawn with its figures named in the legend.
    const legends: Record<string, string[]> = {
      'reward-std': ['reward std (smoothed)'],
      'zero-variance': ['zero-variance share (smoothed)', 'zero-variance groups (smoothed)'],
      clip: ['clip fraction (smoothed)'],
      length: ['response length (smoothed)', 'max'],
      truncated: ['cut at the limit (smoothed)'],
      'token-share': ['parent (smoothed)', 'children (smoothed)'],
      'pass-at-k': ['pass@k (smoothed)'],
      phases: ['rollouts (smoothed)', 'optimizer step (smoothed)'],
    };
    for (const [id, labels] of Object.entries(legends)) {
      const chart = page.getByTestId(`train-chart-${id}`);
      await chart.locator('canvas').waitFor();
      const legend = (await chart.locator('.u-legend').textContent()) ?? '';
      for (const label of labels) expect(legend, id).toContain(label);
    }
    const [csv] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('train-export-csv').click(),
    ]);
    expect(csv.suggestedFilename()).toBe('first-metrics.csv');
    const rows = readFileSync(await csv.path(), 'utf8')
      .trim()
      .split('\n');
    expect(rows).toHaveLength(21);
    expect(rows[0]).toContain('train/reward_std');
    const [jsonl] = await Promise.all([
      page.waitForEvent('download'),
      page.getByTestId('train-export-jsonl').click(),
    ]);
    const steps = readFileSync(await jsonl.path(), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, number>);
    expect(steps.map((s) => s.step)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    // Validation ran every 5 steps: its pass@k is on those steps only.
    expect(steps.filter((s) => 'val/pass_at_k' in s).map((s) => s.step)).toEqual([5, 10, 15, 20]);
  }, 60_000);

  it('opens a rollout with its training on the cards and compares it with its group', async () => {
    // A group with reward variance: a zero-variance group trains no turn (its advantages are 0),
    // and by step 20 the toy policy may have learned every question, so go back to a step with one.
    const groups = page.getByTestId('train-groups');
    const varied = groups.locator('[data-testid="train-group"][data-zero-variance="false"]');
    let step = 20;
    while ((await varied.count()) === 0 && step > 1) {
      step -= 1;
      await page.evaluate((s) => {
        const [path, query = ''] = location.hash.split('?');
        const params = new URLSearchParams(query);
        params.set('step', String(s));
        location.hash = `${path}?${params.toString()}`;
      }, step);
      await page.locator(`[data-testid="train-groups"][data-step="${step}"]`).waitFor();
    }
    await varied.first().getByTestId('train-rollout-link').first().click();
    const header = page.getByTestId('run-training');
    await header.waitFor({ timeout: 20_000 });
    expect(await header.textContent()).toContain(`training step ${step}`);
    expect(await header.getAttribute('data-zero-variance')).toBe('false');
    const card = page.locator('[data-testid="agent-node"][data-agent="0"]');
    const training = card.getByTestId('agent-training');
    await training.waitFor();
    expect(await training.getAttribute('data-inherited')).toBe('false');
    expect(await training.getAttribute('data-weight')).toBe('1');
    expect(Number(await training.getAttribute('data-trained-turns'))).toBeGreaterThan(0);
    expect(await training.textContent()).toMatch(/adv [-+]?\d\.\d{3} · w 1 · t0: \d+ tok/);
    expect(Number(await header.getAttribute('data-advantage'))).toBeCloseTo(
      Number(await training.getAttribute('data-advantage')),
      6,
    );
    await screenshot(page, 'train-rollout-in-tree');
    await page.getByTestId('run-training-compare').first().click();
    const comparison = page.getByTestId('runs-comparison');
    await comparison.waitFor();
    expect(await comparison.getByTestId('compare-left').getAttribute('data-run')).not.toBe(
      await comparison.getByTestId('compare-right').getAttribute('data-run'),
    );
    await page.getByTestId('nav-train').click();
    await page.getByTestId('view-train').waitFor();
  }, 60_000);

  it('pauses a long job at a step boundary and resumes it', async () => {
    await page.getByTestId('nav-train').click();
    await page.getByTestId('view-train').waitFor();
    // The jobs list reloads on every step a job trains: it is never blanked meanwhile.
    const listed = await watchCount(page, 'train-job');
    await launch('long', 100_000);
    await panel().locator('h2', { hasText: 'long' }).waitFor();
    await expect
      .poll(
        async () =>
          Number(
            (await page.getByTestId('train-job-progress').textContent())?.match(
              /step (\d+)/,
            )?.[1] ?? 0,
          ),
        {
          timeout: 60_000,
        },
      )
      .toBeGreaterThan(2);
    await page.getByTestId('train-stop').click();
    await waitForStatus('paused', 'pause');
    const pausedAt = Number(
      (await page.getByTestId('train-job-progress').textContent())?.match(/step (\d+)/)?.[1],
    );
    await page.getByTestId('train-resume').click();
    await page.locator('[data-testid="train-job-panel"][data-status="running"]').waitFor();
    await expect
      .poll(
        async () =>
          Number(
            (await page.getByTestId('train-job-progress').textContent())?.match(
              /step (\d+)/,
            )?.[1] ?? 0,
          ),
        {
          timeout: 60_000,
        },
      )
      .toBeGreaterThan(pausedAt);
    await page.getByTestId('train-stop').click();
    await waitForStatus('paused', 'pause-again');
    expect(await listed.fewest()).toBe(1);
    await screenshot(page, 'train-paused');
  }, 120_000);

  it('overlays a second job on every chart', async () => {
    const first = page.locator('[data-testid="train-job"]', { hasText: 'first' });
    await first.click();
    await panel().locator('h2', { hasText: 'first' }).waitFor();
    // The compare select is drawn once the job's metrics have loaded.
    await expect
      .poll(() => page.getByTestId('train-compare').locator('option').allTextContents())
      .toContain('long');
    await page.getByTestId('train-compare').selectOption({ label: 'long' });
    await expect
      .poll(() => page.getByTestId('train-chart-loss').locator('.u-legend').textContent())
      .toContain('long: GRPO loss (smoothed)');
    await screenshot(page, 'train-compare');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
