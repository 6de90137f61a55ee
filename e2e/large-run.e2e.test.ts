// The Run view on a large stored run in Chromium against the real `rlm-studio serve`: a synthetic
// run of 300 agents and 900 turns opens drawing only the cards in view, edges leave the cards'
// handles, the root's figures and turn chips lay out without overlap, and fitting the view draws
// the rest. Screenshot in test-artifacts/e2e/.
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

let app: ServedApp;
let session: BrowserSession;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  app = await serveApp();
  session = await launchBrowser();
  page = await session.context.newPage();
  pageErrors = collectPageErrors(page);
  await page.goto(app.url);
}, 90_000);
afterAll(async () => {
  await session.close();
  await app.stop();
});

/** Stores a synthetic run through the page's own WebSocket to the engine (runs.synthetic). */
function storeSyntheticRun(agents: number, turns: number): Promise<{ runId: string }> {
  return page.evaluate(
    (size) =>
      new Promise<{ runId: string }>((resolve, reject) => {
        const socket = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api`);
        socket.onopen = () => {
          const payload = { agents: size.agents, turns: size.turns };
          socket.send(
            JSON.stringify({ kind: 'request', id: 1, command: 'runs.synthetic', payload }),
          );
        };
        socket.onmessage = (message) => {
          const frame = JSON.parse(String(message.data)) as {
            kind: string;
            ok: boolean;
            result: { runId: string };
          };
          if (frame.kind !== 'response') return;
          socket.close();
          if (frame.ok) resolve(frame.result);
          else reject(new Error('runs.synthetic failed'));
        };
      }),
    { agents, turns },
  );
}

/** Opens the run and counts the cards in the frame the root first shows. */
function cardsInFirstFrame(runId: string, agents: number): Promise<number> {
  return page.evaluate(
    async ({ runId, agents }) => {
      window.location.hash = `#/run?run=${runId}`;
      return new Promise<number>((resolve) => {
        const check = () => {
          const tree = document.querySelector(
            `[data-testid="agent-tree"][data-agents="${String(agents)}"]`,
          );
          if (tree?.querySelector('[data-testid="agent-node"][data-agent="0"]'))
            resolve(tree.querySelectorAll('.react-flow__node').length);
          else requestAnimationFrame(check);
        };
        check();
      });
    },
    { runId, agents },
  );
}

/** Where an edge out of the root starts, and the root card's position and size. */
function rootEdgeGeometry() {
  return page.evaluate(() => {
    const root = document.querySelector<HTMLElement>('.react-flow__node[data-id="0"]');
    const edge = [...document.querySelectorAll('.react-flow__edge')]
      .find((element) => /^e0\.\d+$/.test(element.getAttribute('data-id') ?? ''))
      ?.querySelector('path.react-flow__edge-path');
    const start = /^M\s*([-\d.]+)[ ,]([-\d.]+)/.exec(edge?.getAttribute('d') ?? '');
    const at = /translate\(([-\d.]+)px,\s*([-\d.]+)px\)/.exec(root?.style.transform ?? '');
    return {
      start: start ? [Number(start[1]), Number(start[2])] : null,
      root: at ? [Number(at[1]), Number(at[2])] : null,
      size: root ? [root.offsetWidth, root.offsetHeight] : null,
    };
  });
}

/** The root card's figures (lines each takes) and the turn chips' extents on the timeline. */
function rootCardLayout() {
  return page.evaluate(() => {
    const stats = [
      ...document.querySelectorAll<HTMLElement>(
        '[data-testid="agent-node"][data-agent="0"] .agent-card-stats > span',
      ),
    ].map((item) => item.offsetHeight / parseFloat(getComputedStyle(item).lineHeight));
    const line = document.querySelector('[data-testid="turn-timeline"]')?.getBoundingClientRect();
    const chips = [...document.querySelectorAll('[data-testid="turn-chip"]')].map((chip) => {
      const rect = chip.getBoundingClientRect();
      return { left: rect.left, right: rect.right };
    });
    return { stats, line: { left: line?.left ?? 0, right: line?.right ?? 0 }, chips };
  });
}

describe('a large stored run', () => {
  it('opens drawing only the cards in view, edges from their handles', async () => {
    const stored = await storeSyntheticRun(300, 900);
    // React Flow gets and renders only the cards in view.
    const drawn = await cardsInFirstFrame(stored.runId, 300);
    expect(drawn).toBeGreaterThan(1);
    expect(drawn).toBeLessThan(60);
    // An edge out of the root starts at the middle of the root card's bottom edge (its handle).
    const geometry = await rootEdgeGeometry();
    expect(geometry.start).not.toBeNull();
    const [x = 0, y = 0] = geometry.root ?? [];
    const [width = 0, height = 0] = geometry.size ?? [];
    expect(geometry.start?.[0]).toBeCloseTo(x + width / 2, 0);
    // React Flow starts it at the bottom of the 6 px handle centred on that edge.
    expect(geometry.start?.[1]).toBeCloseTo(y + height + 3, 0);
    await page.locator('[data-testid="agent-node"][data-agent="0"]').click();
    await page.locator('[data-testid="turn-inspector"][data-agent="0"]').waitFor();
    // The root's long figures (17 min of turns) wrap as whole items; its turns, two of them at the
    // very end of that time, stay apart and inside the timeline.
    const layout = await rootCardLayout();
    expect(layout.stats).toHaveLength(4);
    for (const lines of layout.stats) expect(lines).toBeLessThan(1.5); // one line each
    expect(layout.chips).toHaveLength(3);
    for (const [index, chip] of layout.chips.entries()) {
      expect(chip.left).toBeGreaterThanOrEqual(layout.line.left);
      expect(chip.right).toBeLessThanOrEqual(layout.line.right + 0.5);
      const before = layout.chips[index - 1];
      if (before) expect(chip.left).toBeGreaterThanOrEqual(before.right - 0.5);
    }
    await screenshot(page, 'debugger-large-run');
    // The rest of the tree follows the first paint: fitting the view draws far more cards.
    await page.locator('.react-flow__controls-fitview').click();
    await expect.poll(() => page.locator('.react-flow__node').count()).toBeGreaterThan(drawn + 40);
  });

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
