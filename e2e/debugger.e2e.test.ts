// The RLM debugger in Chromium against the real `rlm-studio serve`: a live scripted run over the
// shared S2ORC paper (Pyodide REPL, children two levels deep) drawn as it happens, the turn inspector
// with Monaco, keyboard navigation and `/` search, links to an agent and turn, replay through the
// same rendering, and the final evidence on the paper. Screenshots in test-artifacts/e2e/.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectPageErrors,
  launchBrowser,
  screenshot,
  serveApp,
  type BrowserSession,
  type ServedApp,
} from './harness.ts';

const s2orc = {
  name: '2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf',
  mimeType: 'application/pdf',
  buffer: readFileSync(
    new URL(
      '../../shared/data/papers/2020.acl-main.447_arXiv-1911.02782_S2ORC.pdf',
      import.meta.url,
    ),
  ),
};
const set = 's2orc';
const question = 'How does S2ORC process papers?';

let app: ServedApp;
let session: BrowserSession;
let page: Page;
let pageErrors: string[] = [];
let scriptPath = '';
let runId = '';
let forkId = '';

/** The engine's scripted model: the every-built-in script, slowed so the run is visibly live. */
function writeScript(dir: string): string {
  const responses = JSON.parse(
    readFileSync(new URL('../app/rlm/fixtures/every-builtin.script.json', import.meta.url), 'utf8'),
  ) as Record<string, string[]>;
  const path = join(dir, 'live.script.json');
  writeFileSync(path, JSON.stringify({ delayMs: 60, responses }));
  return path;
}

beforeAll(async () => {
  app = await serveApp();
  scriptPath = writeScript(app.workspace);
  session = await launchBrowser();
  await session.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: app.origin,
  });
  page = await session.context.newPage();
  pageErrors = collectPageErrors(page);
  await page.goto(app.url);
  await page.getByTestId('new-set-name').fill(set);
  await page.getByTestId('import-input').setInputFiles([s2orc]);
  await page.locator('[data-testid="import-progress"][data-state="finished"]').waitFor({
    timeout: 60_000,
  });
}, 90_000);
afterAll(async () => {
  await session.close();
  await app.stop();
});

async function goToHash(hash: string): Promise<void> {
  await page.evaluate((target) => {
    window.location.hash = target;
  }, hash);
}

/** The hash's params, read in the page (page.url() may lag behind history.replaceState). */
const hashParams = async () =>
  new URLSearchParams((await page.evaluate(() => window.location.hash)).split('?')[1] ?? '');
const agentNode = (id: string) => page.locator(`[data-testid="agent-node"][data-agent="${id}"]`);

describe('the run view', () => {
  it('starts a scripted run and draws its tree live until every agent is done', async () => {
    await goToHash('#/run');
    await page.getByTestId('run-form').waitFor();
    await page.getByTestId('run-start').click();
    expect(await page.getByTestId('run-form').textContent()).toContain('ask a question');

    await page.getByTestId('run-set').selectOption(set);
    await page.getByTestId('run-question').fill(question);
    await page.getByTestId('run-model').fill(`scripted:${scriptPath}`);
    await page.getByTestId('run-budget-maxDepth').fill('2');
    // Every budget input lies inside the budgets' box (inputs' default width once pushed the third
    // column past its border).
    const budgets = await page.evaluate(() => {
      const box = document.querySelector('.run-form-budgets')?.getBoundingClientRect();
      const inputs = [...document.querySelectorAll('[data-testid^="run-budget-"]')].map((input) =>
        input.getBoundingClientRect(),
      );
      return { right: box?.right ?? 0, inputs: inputs.map((rect) => rect.right) };
    });
    expect(budgets.inputs).toHaveLength(6);
    for (const right of budgets.inputs) expect(right).toBeLessThanOrEqual(budgets.right);
    await page.getByTestId('run-start').click();
    await page.getByTestId('run-page').waitFor();
    runId = (await hashParams()).get('run') ?? '';
    expect(runId).not.toBe('');

    // Live: an agent is seen running or waiting on its children before the run ends.
    await page
      .locator(
        '[data-testid="agent-node"][data-state="running"], [data-testid="agent-node"][data-state="waiting"]',
      )
      .first()
      .waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('run-status').textContent()).toBe('running');
    await screenshot(page, 'debugger-live-running');

    await page.locator('[data-testid="run-page"][data-status="done"]').waitFor({ timeout: 90_000 });
    await expect.poll(() => page.getByTestId('agent-node').count()).toBe(5);
    expect(await page.locator('[data-testid="agent-node"][data-state="done"]').count()).toBe(5);
    // Edges carry the sub-questions.
    const labels = await page.locator('.react-flow__edge-text').allTextContents();
    expect(labels.some((label) => label.startsWith('Return evidence about'))).toBe(true);
    // Siblings' labels (the root's three children) stand apart, each above its own child.
    const boxes = await page.evaluate(() =>
      [...document.querySelectorAll('.react-flow__edge-textwrapper')].map((label) => {
        const rect = label.getBoundingClientRect();
        return { left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom };
      }),
    );
    expect(boxes).toHaveLength(4);
    for (const [index, box] of boxes.entries())
      for (const other of boxes.slice(index + 1)) {
        const sameRow = box.top < other.bottom && other.top < box.bottom;
        if (sameRow) expect(box.right <= other.left || other.right <= box.left).toBe(true);
      }
    await screenshot(page, 'debugger-live-done');
  }, 120_000);

  it('inspects an agent: timeline, exact prompt, response, Monaco code, output, variables, children', async () => {
    await agentNode('0').click();
    const inspector = page.getByTestId('turn-inspector');
    await inspector.waitFor();
    expect(await inspector.getAttribute('data-agent')).toBe('0');
    expect(await page.getByTestId('turn-chip').count()).toBe(3);
    await page.locator('[data-testid="turn-chip"][data-turn="0"]').click();
    expect((await hashParams()).get('turn')).toBe('0');
    expect(await page.getByTestId('turn-message').last().textContent()).toContain(question);
    await page.locator('[data-testid="code-viewer"][data-ready="true"]').first().waitFor();
    expect(await page.locator('.monaco-editor .view-lines').first().textContent()).toContain(
      'list_papers',
    );
    expect(await page.getByTestId('turn-stdout').first().textContent()).toContain('1911.02782');
    expect(await page.getByTestId('turn-variables').first().textContent()).toContain('titles');
    await page.getByTestId('response-raw').click();
    expect(await page.getByTestId('response-raw-text').textContent()).toContain('```repl');
    await screenshot(page, 'debugger-inspector');

    await page.locator('[data-testid="turn-chip"][data-turn="1"]').click();
    await page.locator('[data-testid="turn-child-link"][data-agent="0.1"]').click();
    expect(await inspector.getAttribute('data-agent')).toBe('0.1');
    expect(await page.getByTestId('agent-task').textContent()).toContain('LaTeX source');
  });

  it('copies a subtree as JSON and as Markdown', async () => {
    await agentNode('0.0').click();
    await page.getByTestId('copy-json').click();
    await page.getByTestId('copy-status').waitFor();
    const json = JSON.parse(await page.evaluate(() => navigator.clipboard.readText())) as {
      id: string;
      children: { id: string }[];
    };
    expect(json.id).toBe('0.0');
    expect(json.children.map((child) => child.id)).toEqual(['0.0.0']);
    await page.getByTestId('copy-markdown').click();
    await expect
      .poll(() => page.evaluate(() => navigator.clipboard.readText()))
      .toContain('### Agent 0.0.0 (done)');
  });

  it('moves with the keyboard, searches with /, and Esc goes back', async () => {
    await page.locator('.react-flow__pane').click();
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await hashParams()).get('agent')).toBeNull();
    await page.keyboard.press('l');
    await expect.poll(async () => (await hashParams()).get('agent')).toBe('0');
    expect((await hashParams()).get('turn')).toBe('2');
    await page.keyboard.press('k');
    await expect.poll(async () => (await hashParams()).get('turn')).toBe('1');
    await page.keyboard.press('ArrowUp');
    await expect.poll(async () => (await hashParams()).get('turn')).toBe('0');
    await page.keyboard.press('j');
    await expect.poll(async () => (await hashParams()).get('turn')).toBe('1');
    await page.keyboard.press('ArrowRight');
    await expect.poll(async () => (await hashParams()).get('agent')).toBe('0.0');
    await page.keyboard.press('l');
    await expect.poll(async () => (await hashParams()).get('agent')).toBe('0.0.0');
    await page.keyboard.press('h');
    await expect.poll(async () => (await hashParams()).get('agent')).toBe('0.0');

    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe(
      'tree-search',
    );
    await page.keyboard.type('GROBID');
    await page.getByTestId('tree-search-count').waitFor();
    await expect.poll(() => page.locator('.agent-card.match').count()).toBeGreaterThanOrEqual(2);
    const matching = await page
      .locator('.agent-card.match')
      .evaluateAll((cards) => cards.map((card) => card.getAttribute('data-agent')));
    expect(matching).toContain('0.0.0');
    const place = async () => {
      const params = await hashParams();
      return `${params.get('agent') ?? ''}/${params.get('turn') ?? ''}`;
    };
    await page.keyboard.press('Enter');
    await expect.poll(async () => matching.includes((await hashParams()).get('agent'))).toBe(true);
    const first = await place();
    await page.keyboard.press('Enter');
    await expect.poll(place).not.toBe(first);
    await screenshot(page, 'debugger-keyboard-search');
    await page.keyboard.press('Escape');
    expect(await page.locator('.agent-card.match').count()).toBe(0);
    await page.keyboard.press('Escape');
    await expect.poll(async () => (await hashParams()).get('agent')).toBeNull();
  });

  it('opens a run, agent and turn from a link', async () => {
    await page.goto(
      `${app.url.split('#')[0] ?? app.url}#/run?run=${encodeURIComponent(runId)}&agent=0.0.0&turn=1`,
    );
    const inspector = page.getByTestId('turn-inspector');
    await inspector.waitFor();
    expect(await inspector.getAttribute('data-agent')).toBe('0.0.0');
    expect(await page.getByTestId('turn-detail').getAttribute('data-turn')).toBe('1');
    expect(await page.locator('[data-testid="turn-chip"][aria-current="step"]').textContent()).toBe(
      '1',
    );
  });

  it('shows the final evidence spans on the paper', async () => {
    await goToHash(`#/run?run=${encodeURIComponent(runId)}`);
    const panel = page.getByTestId('evidence-panel');
    await panel.waitFor();
    const spans = page.getByTestId('evidence-span');
    expect(await spans.count()).toBeGreaterThanOrEqual(3);
    expect(await page.locator('[data-testid="evidence-span"][data-placed="true"]').count()).toBe(
      await spans.count(),
    );
    expect(await page.getByTestId('evidence-text').getAttribute('data-paper')).toBe('1911.02782');
    await screenshot(page, 'debugger-evidence');
  });

  it('replays the finished run step by step and at speed through the same tree', async () => {
    await page.getByTestId('run-replay-link').click();
    const controls = page.getByTestId('replay-controls');
    await controls.waitFor();
    expect(await controls.getAttribute('data-cursor')).toBe('0');
    expect(await page.getByTestId('agent-node').count()).toBe(0);
    await page.getByTestId('replay-next-turn').click();
    await agentNode('0').waitFor();
    expect(await agentNode('0').getAttribute('data-state')).toBe('running');
    await page.getByTestId('replay-step').click();
    const cursor = Number(await controls.getAttribute('data-cursor'));
    expect(cursor).toBeGreaterThan(1);
    await page.keyboard.press(',');
    await expect
      .poll(async () => Number(await controls.getAttribute('data-cursor')))
      .toBe(cursor - 1);
    await page.getByTestId('replay-speed').selectOption('64');
    await page.getByTestId('replay-play').click();
    await page.locator('[data-testid="run-page"][data-status="done"]').waitFor({ timeout: 30_000 });
    expect(await page.locator('[data-testid="agent-node"][data-state="done"]').count()).toBe(5);
    expect(await controls.getAttribute('data-cursor')).toBe(
      await controls.getAttribute('data-length'),
    );
    await screenshot(page, 'debugger-replay');
  });

  it('forks the root at its last turn with edited code, and the fork answers differently', async () => {
    await goToHash(`#/run?run=${encodeURIComponent(runId)}&agent=0&turn=2`);
    await page.getByTestId('fork-turn').click();
    const dialog = page.getByTestId('fork-dialog');
    await dialog.waitFor();
    expect(await page.getByTestId('fork-text').inputValue()).toContain("FINAL_VAR('evidence')");
    await page.getByTestId('fork-text').fill("FINAL_VAR(['forked answer: S2ORC'])");
    await screenshot(page, 'debugger-fork-dialog');
    await page.getByTestId('fork-start').click();
    await expect.poll(async () => (await hashParams()).get('run')).not.toBe(runId);
    forkId = (await hashParams()).get('run') ?? '';
    // The fork ends within a few hundred ms; a few frames after it shows done, its cards are laid
    // out (none overlapping), not left where they waited for the next layout (up to 250 ms).
    const overlapping = await page.evaluate(async (id) => {
      const frames = (count: number) =>
        new Promise<void>((resolve) => {
          const step = (left: number) => {
            if (left === 0) resolve();
            else
              requestAnimationFrame(() => {
                step(left - 1);
              });
          };
          step(count);
        });
      const selector = `[data-testid="run-page"][data-run="${id}"][data-status="done"]`;
      const deadline = performance.now() + 60_000;
      while (!document.querySelector(selector)) {
        if (performance.now() > deadline) return { cards: -1, count: -1 }; // the fork never ended
        await frames(1);
      }
      await frames(8);
      const cards = [...document.querySelectorAll('[data-testid="agent-node"]')].map((card) =>
        card.getBoundingClientRect(),
      );
      let count = 0;
      for (const [index, a] of cards.entries())
        for (const b of cards.slice(index + 1))
          if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) count++;
      return { cards: cards.length, count };
    }, forkId);
    expect(overlapping).toEqual({ cards: 5, count: 0 });
    expect(await page.getByTestId('run-question').textContent()).toBe(question);
    expect(await page.locator('.run-facts').textContent()).toContain(`fork of ${runId}`);
    await agentNode('0').click();
    expect(await page.getByTestId('agent-answer').textContent()).toContain('forked answer: S2ORC');
    await screenshot(page, 'debugger-fork-done');
  }, 90_000);

  it('lists, filters and compares the run with its fork', async () => {
    await goToHash('#/runs');
    await page.getByTestId('runs-table').waitFor();
    const row = (id: string) => page.locator(`[data-testid="run-row"][data-run="${id}"]`);
    await row(forkId).waitFor();
    await page.getByTestId('runs-search').fill('S2ORC process');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(2);
    await page.getByTestId('runs-status').selectOption('failed');
    await page.getByTestId('runs-empty').waitFor();
    await page.getByTestId('runs-status').selectOption('');
    await expect.poll(() => page.getByTestId('run-row').count()).toBe(2);

    await row(runId).getByTestId('run-pick').check();
    await row(forkId).getByTestId('run-pick').check();
    await page.getByTestId('runs-compare').click();
    const compare = page.getByTestId('runs-comparison');
    await compare.waitFor();
    expect(await page.getByTestId('compare-left').getAttribute('data-run')).toBe(runId);
    expect(
      await page.locator('[data-testid="compare-row"][data-place="0#2"]').getAttribute('data-same'),
    ).toBe('false');
    expect(
      await page.locator('[data-testid="compare-row"][data-place="0#0"]').getAttribute('data-same'),
    ).toBe('true');
    expect(await page.getByTestId('spans-right').textContent()).toContain('forked answer: S2ORC');
    expect(await page.getByTestId('spans-left').locator('li').count()).toBeGreaterThanOrEqual(3);
    await expect.poll(() => compare.getByTestId('agent-node').count()).toBeGreaterThan(1);
    await screenshot(page, 'debugger-compare');
  });

  it('exports picked runs and deletes one', async () => {
    const download = page.waitForEvent('download');
    await page.getByTestId('runs-export').click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.jsonl$/);
    await page.getByTestId('compare-close').click();
    await page.getByTestId('runs-comparison').waitFor({ state: 'detached' });
    page.once('dialog', (dialog) => void dialog.accept());
    await page
      .locator(`[data-testid="run-row"][data-run="${runId}"]`)
      .getByTestId('run-pick')
      .uncheck();
    await page.getByTestId('runs-delete').click();
    await page
      .locator(`[data-testid="run-row"][data-run="${forkId}"]`)
      .waitFor({ state: 'detached' });
    expect(await page.getByTestId('runs-notice').textContent()).toBe('Deleted 1 run');
  });

  it('imports the real alexzhang13/rlm log and renders its runs, turns and code', async () => {
    await page.getByTestId('runs-search').fill('');
    await page
      .getByTestId('runs-import-input')
      .setInputFiles(
        new URL(
          '../../shared/data/trajectories/alexzhang13-rlm-gpt4o-example.jsonl',
          import.meta.url,
        ).pathname,
      );
    const report = page.getByTestId('runs-import-report');
    await report.waitFor();
    expect(await report.getAttribute('data-format')).toBe('rlm-log');
    expect(await page.getByTestId('runs-imported').count()).toBe(6);
    await screenshot(page, 'debugger-import');
    await page.getByTestId('runs-imported').first().getByRole('link').click();
    await page.locator('[data-testid="run-page"][data-status="done"]').waitFor();
    expect(await page.getByTestId('run-question').textContent()).toBe(
      'Generate a random number between 1 and 100.',
    );
    await agentNode('0').click();
    // The inspector opens after the router commits the selection: wait for it, then count.
    await page.locator('[data-testid="turn-inspector"][data-agent="0"]').waitFor();
    await expect.poll(() => page.getByTestId('turn-chip').count()).toBe(4);
    await page.locator('[data-testid="turn-chip"][data-turn="0"]').click();
    await page.getByTestId('turn-code').first().waitFor();
    await page.locator('[data-testid="code-viewer"][data-ready="true"]').first().waitFor();
    await screenshot(page, 'debugger-imported-run');
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
