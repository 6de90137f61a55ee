// The Train view in Chromium against the real `rlm-studio serve`: launch a short real training job
// (the toy task: the trainer, its process, checkpoints and charts are all real; the policy is the
// model-free bigram), watch the charts fill in and finish, open a step's GRPO groups, pause and
// resume a long job, and overlay two jobs.
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

async function launch(name: string, steps: number): Promise<void> {
  await page.getByTestId('train-name').fill(name);
  await page.getByTestId('train-base-model').fill('toy:bigram');
  await page.getByTestId('train-steps').fill(String(steps));
  await page.getByTestId('train-checkpointEvery').fill('5');
  await page.getByTestId('train-batchSize').fill('2');
  await page.getByTestId('train-learningRate').fill('4');
  await page.getByTestId('train-beta').fill('0');
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
    await launch('first', 20);
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

  it('pauses a long job at a step boundary and resumes it', async () => {
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
    await panel().waitFor();
    const options = await page.getByTestId('train-compare').locator('option').allTextContents();
    expect(options).toContain('long');
    await page.getByTestId('train-compare').selectOption({ label: 'long' });
    await expect
      .poll(() => page.getByTestId('train-chart-loss').locator('.u-legend').textContent())
      .toContain('long: loss (smoothed)');
    await screenshot(page, 'train-compare');
    expect(pageErrors).toEqual([]);
  }, 60_000);
});
