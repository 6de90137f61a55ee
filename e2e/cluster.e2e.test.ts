// "To the cluster" in Chromium against the real `rlm-studio serve` and a stand-in Ray job server on
// 127.0.0.1 (training/cluster/ray-stand-in.ts): export the configured job (files in the workspace),
// named errors for a missing address and a proxy's page, the address and token saved in Settings
// (the token never in the page), submit, follow a job to SUCCEEDED with its logs, stop a second one,
// find a job submitted from the command line, an export uploaded with the job it is submitted as.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeToyRows } from '../training/cluster/toy-rows.test-support.ts';
import { RayJobsClient } from '../training/cluster/ray-jobs.ts';
import { startRayStandIn, type RayStandIn } from '../training/cluster/ray-stand-in.ts';
import { openApp, screenshot, type OpenedApp } from './harness.ts';
import { watchCount } from './watch-count.ts';

const TOKEN = 'ray-e2e-token-SECRET-42';

let opened: OpenedApp;
let page: Page;
let server: RayStandIn;
let datasetPath: string;

beforeAll(async () => {
  opened = await openApp();
  page = opened.page;
  server = await startRayStandIn({ token: TOKEN });
  datasetPath = join(opened.app.workspace, 'cluster-questions.jsonl');
  writeToyRows(datasetPath, 5);
});
afterAll(async () => {
  await opened.close();
  await server.close();
});

const panel = () => page.getByTestId('cluster-job-panel');
async function waitForState(state: string): Promise<string> {
  await page.locator(`[data-testid="cluster-job-panel"][data-state="${state}"]`).waitFor();
  return (await panel().getAttribute('data-submission')) ?? '';
}

describe('train: to the cluster', () => {
  it('exports the configured job to a folder of the workspace and lists its files', async () => {
    await page.getByTestId('nav-train').click();
    await page.getByTestId('view-train').waitFor();
    await page.getByTestId('train-name').fill('Cluster run');
    // The form names no base model until the workspace has one; the cluster's is its own field.
    await page.getByTestId('train-base-model').fill('toy:bigram');
    await page.getByTestId('train-dataset').fill(datasetPath);
    await page.getByTestId('cluster-gpusPerNode').fill('2');
    await page.getByTestId('cluster-export').click();
    await page.getByTestId('cluster-export-result').waitFor();
    const dir = await page.getByTestId('cluster-export-dir').textContent();
    expect(dir?.startsWith(join(opened.app.workspace, 'cluster'))).toBe(true);
    const files = await page.getByTestId('cluster-export-files').locator('li').allTextContents();
    expect(files.map((f) => f.split(' ')[0])).toEqual([
      'train.jsonl',
      'val.jsonl',
      'overrides.json',
      'run.sh',
      'ray-job.json',
      'train-config.json',
    ]);
    for (const file of files)
      expect(existsSync(join(dir ?? '', file.split(' ')[0] ?? ''))).toBe(true);
    await screenshot(page, 'cluster-exported');
  });

  it('names the missing cluster address and keeps the export', async () => {
    await page.getByTestId('cluster-submit').click();
    await page.getByTestId('cluster-failure').waitFor();
    expect(await page.getByTestId('cluster-failure').textContent()).toContain(
      'ClusterAddressMissingError',
    );
    await page.getByTestId('cluster-export-result').waitFor();
  });

  it('saves the address and token in Settings; the token is never shown again', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('cluster-settings').waitFor();
    await page.getByTestId('cluster-address').fill(server.address);
    await page.getByTestId('cluster-token').fill(TOKEN);
    await page.getByTestId('cluster-save').click();
    await page.getByTestId('cluster-token-stored').waitFor();
    await page.reload();
    await page.getByTestId('cluster-token-stored').waitFor();
    expect(await page.getByTestId('cluster-address').inputValue()).toBe(server.address);
    expect(await page.content()).not.toContain(TOKEN);
    await page.getByTestId('cluster-settings').scrollIntoViewIfNeeded();
    await screenshot(page, 'cluster-settings');
  });

  it('submits the export and follows the job to SUCCEEDED with its logs', async () => {
    await page.getByTestId('nav-train').click();
    // The export is still offered after leaving the view.
    await page.getByTestId('cluster-export-result').waitFor();
    await page.getByTestId('cluster-submit').click();
    const id = await waitForState('RUNNING');
    expect(server.jobs.get(id)?.metadata).toMatchObject({ app: 'rlm-studio', name: 'Cluster run' });
    // The logs are refreshed while it runs (each poll of the stand-in adds a step line).
    await page
      .getByTestId('cluster-logs')
      .getByText(/step 2 reward/)
      .waitFor();
    // A proxy's login page instead of the API: named, with the last state and logs still shown;
    // the next poll after it goes away clears it.
    server.override = () => ({
      status: 200,
      body: '<html><body>Sign in</body></html>',
      contentType: 'text/html',
    });
    await page
      .getByTestId('cluster-job-failure')
      .getByText(/RayJobsError: .*not JSON/)
      .waitFor();
    expect(await panel().getAttribute('data-state')).toBe('RUNNING');
    await page
      .getByTestId('cluster-logs')
      .getByText(/step 2 reward/)
      .waitFor();
    server.override = null;
    await page.getByTestId('cluster-job-failure').waitFor({ state: 'detached' });
    server.finish(id);
    await waitForState('SUCCEEDED');
    await page.getByTestId('cluster-logs').getByText('Job finished successfully.').waitFor();
    expect(await page.getByTestId('cluster-stop').count()).toBe(0);
    await page.getByTestId('cluster-logs').scrollIntoViewIfNeeded();
    await screenshot(page, 'cluster-succeeded');
  });

  it('stops a second job', async () => {
    await page.getByTestId('cluster-submit').click();
    await page.locator('[data-testid="cluster-job"]').nth(1).waitFor();
    const id = await waitForState('RUNNING');
    expect(server.jobs.get(id)?.status).toBe('RUNNING');
    await page.getByTestId('cluster-stop').click();
    await waitForState('STOPPED');
    expect(server.jobs.get(id)?.status).toBe('STOPPED');
    const states = await page
      .getByTestId('cluster-job')
      .evaluateAll((buttons) => buttons.map((b) => b.getAttribute('data-state')));
    expect(states).toEqual(['STOPPED', 'SUCCEEDED']);
    for (const request of server.seen) expect(request.authorization).toBe(`Bearer ${TOKEN}`);
    expect(opened.pageErrors).toEqual([]);
    await page.getByTestId('cluster-logs').scrollIntoViewIfNeeded();
    await screenshot(page, 'cluster-stopped');
  });

  it('finds a job submitted from the command line and follows it', async () => {
    // What `rlm-studio cluster submit --dir` sends (an export's ray-job.json), and a job of
    // someone else's on the same cluster.
    const ray = new RayJobsClient({ address: server.address, token: TOKEN });
    const fromCli = (
      await ray.submit({
        entrypoint: 'bash run.sh',
        metadata: { app: 'rlm-studio', name: 'cli-run' },
      })
    ).submissionId;
    await ray.submit({ entrypoint: 'python other.py', metadata: { app: 'someone-else' } });
    // The list is never blanked while it reloads.
    const listed = await watchCount(page, 'cluster-job');
    await page.getByTestId('cluster-find-jobs').click();
    await page.getByTestId('cluster-found').getByText('1 job found on the cluster').waitFor();
    // The list shows what it had until its reload after the find lands.
    await expect.poll(() => page.getByTestId('cluster-job').count()).toBe(3);
    expect(await listed.fewest()).toBe(2);
    const names = await page.getByTestId('cluster-job').allTextContents();
    expect(names).toHaveLength(3);
    expect(names.filter((name) => name.startsWith(`cli-run · ${fromCli}`))).toHaveLength(1);
    await page.getByTestId('cluster-job').getByText(`cli-run · ${fromCli}`).click();
    expect(await waitForState('RUNNING')).toBe(fromCli);
    await page.getByTestId('cluster-find-jobs').click();
    await page.getByTestId('cluster-found').getByText('No other RLM Studio jobs').waitFor();
    expect(opened.pageErrors).toEqual([]);
    await screenshot(page, 'cluster-found');
  });

  it('uploads an export made with "upload with the job" when it is submitted', async () => {
    // The form was reloaded with the Settings page: name the dataset again.
    await page.getByTestId('train-name').fill('Uploaded run');
    await page.getByTestId('train-base-model').fill('toy:bigram');
    await page.getByTestId('train-dataset').fill(datasetPath);
    await page.getByTestId('cluster-upload').check();
    await page.getByTestId('cluster-export').click();
    await page
      .getByTestId('cluster-failure')
      .getByText(/skyrlDir: .*skyrl-train checkout/)
      .waitFor();
    await page.getByTestId('cluster-skyrlDir').fill('/opt/SkyRL/skyrl-train');
    await page.getByTestId('cluster-export').click();
    await page
      .locator('[data-testid="cluster-export-hint"]', { hasText: /^Submit uploads this folder/ })
      .waitFor();
    const before = await page.getByTestId('cluster-job').count();
    await page.getByTestId('cluster-submit').click();
    await page.locator('[data-testid="cluster-job"]').nth(before).waitFor();
    const submitted = [...server.jobs.values()].at(-1);
    const uri = String(submitted?.runtimeEnv.working_dir);
    expect(uri).toMatch(/^gcs:\/\/_ray_pkg_/);
    expect(server.packages.has(uri.slice('gcs://'.length))).toBe(true);
    expect(submitted?.entrypoint).toMatch(/^export RLM_JOB_DIR="\$PWD" && cd \/opt\/SkyRL/);
    expect(opened.pageErrors).toEqual([]);
    await screenshot(page, 'cluster-uploaded');
  });
});
