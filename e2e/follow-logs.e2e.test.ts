// "Open a log folder" in Chromium against the real `rlm-studio serve`: a log another tool is still
// writing (the real alexzhang13/rlm log, written line by line; a nano-rlm session folder growing
// a child) appears in the Runs view, its run page's tree grows as lines land, and it ends at the
// final answer. A folder imports whole, naming the file it could not read; a missing path is named.
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, screenshot, type OpenedApp } from './harness.ts';

const realLog = new URL(
  '../../shared/data/trajectories/alexzhang13-rlm-gpt4o-example.jsonl',
  import.meta.url,
).pathname;

let opened: OpenedApp;
let page: Page;
let pageErrors: string[] = [];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-follow-e2e-'));
  opened = await openApp();
  ({ page, pageErrors } = opened);
});
afterAll(async () => {
  await opened.close();
  rmSync(dir, { recursive: true, force: true });
});

async function goToHash(hash: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
}

const agentNode = (id: string) => page.locator(`[data-testid="agent-node"][data-agent="${id}"]`);
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

async function follow(path: string): Promise<void> {
  await goToHash('#/runs');
  await page.getByTestId('runs-follow-path').fill(path);
  await page.getByTestId('runs-follow-idle').fill('60');
  await page.getByTestId('runs-follow').click();
}

/** The followed log's panel for a path. */
const followed = (path: string) =>
  page.locator('[data-testid="runs-followed"]', { has: page.locator('code', { hasText: path }) });

describe('following a log another tool is writing', () => {
  it('shows an rlm log growing live in the tree and ends at its final answer', async () => {
    const lines = readFileSync(realLog, 'utf8').split('\n');
    const end = lines.findIndex((text) => /"final_answer": ?"/.test(text));
    const file = join(dir, 'rlm-live.jsonl');
    writeFileSync(
      file,
      lines
        .slice(0, 3)
        .map((text) => `${text}\n`)
        .join(''),
    );
    await follow(file);
    const run = followed(file).getByTestId('runs-followed-run');
    await run.waitFor();
    expect(await run.getAttribute('data-status')).toBe('running');
    expect(await followed(file).getByTestId('runs-follow-state').textContent()).toBe('following…');
    await screenshot(page, 'follow-log-following');

    await run.getByRole('link').click();
    await page.locator('[data-testid="run-page"][data-status="running"]').waitFor();
    expect(await page.getByTestId('run-question').textContent()).toBe(
      'Generate a random number between 1 and 100.',
    );
    await agentNode('0').click();
    await page.locator('[data-testid="turn-inspector"][data-agent="0"]').waitFor();
    await expect.poll(() => page.getByTestId('turn-chip').count()).toBe(1);

    // The tool writes its next turns: each lands in the open page.
    appendFileSync(file, `${lines[3] ?? ''}\n`);
    await expect.poll(() => page.getByTestId('turn-chip').count(), { timeout: 10_000 }).toBe(2);
    for (const text of lines.slice(4, end + 1)) appendFileSync(file, `${text}\n`);
    await page.locator('[data-testid="run-page"][data-status="done"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => page.getByTestId('turn-chip').count()).toBe(end - 1);
    await screenshot(page, 'follow-log-answered');

    await goToHash('#/runs');
    await expect
      .poll(() => followed(file).getByTestId('runs-follow-state').textContent(), {
        timeout: 10_000,
      })
      .toBe('ended: every run answered');
    expect(await run.getAttribute('data-status')).toBe('done');
  });

  it('shows a nano-rlm session as it appears and its child as the child folder grows', async () => {
    const t0 = 1_767_000_000;
    const sessions = join(dir, 'sessions');
    mkdirSync(sessions);
    await follow(sessions);
    await followed(sessions).getByText('Waiting for a log to appear').waitFor();

    const root = join(sessions, '20260301-120000-ab12');
    mkdirSync(root);
    writeFileSync(join(root, 'meta.json'), JSON.stringify({ model: 'claude', status: 'running' }));
    const messages = join(root, 'messages.jsonl');
    writeFileSync(
      messages,
      line({ type: 'user', content: 'Compare the two papers.', timestamp: t0 }) +
        line({
          type: 'assistant',
          content: '',
          tool_calls: [{ name: 'python', args: { code: 'a = rlm("Read paper A")' } }],
          timestamp: t0 + 1,
        }),
    );
    const run = followed(sessions).getByTestId('runs-followed-run');
    await run.waitFor({ timeout: 10_000 });
    await run.getByRole('link').click();
    await page.locator('[data-testid="run-page"][data-status="running"]').waitFor();
    await agentNode('0').waitFor();
    expect(await agentNode('0.0').count()).toBe(0);

    const child = join(root, 'sub-aa11');
    mkdirSync(child);
    writeFileSync(join(child, 'meta.json'), JSON.stringify({ depth: 1, status: 'running' }));
    writeFileSync(
      join(child, 'messages.jsonl'),
      line({ type: 'user', content: 'Read paper A', timestamp: t0 + 2 }),
    );
    appendFileSync(
      messages,
      line({ type: 'sub_spawn', child_dir: 'sub-aa11', prompt: 'Read paper A', timestamp: t0 + 2 }),
    );
    await agentNode('0.0').waitFor({ timeout: 10_000 });
    await screenshot(page, 'follow-nano-rlm-child');

    appendFileSync(
      join(child, 'messages.jsonl'),
      line({ type: 'assistant', content: 'It uses attention.', timestamp: t0 + 3 }) +
        line({ type: 'done', answer: 'It uses attention.', timestamp: t0 + 3 }),
    );
    appendFileSync(
      messages,
      line({ type: 'tool_result', content: 'It uses attention.', timestamp: t0 + 4 }) +
        line({ type: 'assistant', content: 'Paper A uses attention.', timestamp: t0 + 5 }) +
        line({ type: 'done', answer: 'Paper A uses attention.', timestamp: t0 + 5 }),
    );
    await page.locator('[data-testid="run-page"][data-status="done"]').waitFor({ timeout: 10_000 });
    await expect.poll(() => agentNode('0.0').getAttribute('data-state')).toBe('done');
  });

  it('imports a folder whole, naming the file it could not read', async () => {
    const logs = join(dir, 'logs');
    mkdirSync(logs);
    writeFileSync(join(logs, 'rlm.jsonl'), readFileSync(realLog));
    writeFileSync(join(logs, 'notes.json'), '{"hello": "world"}');
    await goToHash('#/runs');
    await page.getByTestId('runs-follow-path').fill(logs);
    await page.getByTestId('runs-import-path').click();
    const report = page.getByTestId('runs-path-report');
    await report.waitFor();
    expect(await report.getByTestId('runs-path-imported').count()).toBe(6);
    expect(await report.textContent()).toContain('notes.json: UnknownRunLogFormatError');
  });

  it('names a path that is not there', async () => {
    await follow(join(dir, 'missing'));
    const failure = page.getByTestId('runs-follow-failure');
    await failure.waitFor();
    expect(await failure.textContent()).toMatch(/^RunLogPathError: '.*missing': there is no such/);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
