// The app shell in Chromium against the real `rlm-studio serve`: it loads, every view is
// reachable (by click and by shortcut), the theme round-trips through the engine and persists.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, type ServedApp, openApp, type OpenedApp } from './harness.ts';

const views = [
  ['papers', 'Papers'],
  ['datasets', 'Datasets'],
  ['run', 'Run'],
  ['runs', 'Runs'],
  ['eval', 'Eval'],
  ['train', 'Train'],
] as const;

let opened: OpenedApp;
let app: ServedApp;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  opened = await openApp();
  ({ app, page, pageErrors } = opened);
});
afterAll(async () => {
  await opened.close();
});

describe('app shell', () => {
  it('loads, connects to the engine and shows the workspace it serves', async () => {
    await page.getByTestId('view-papers').waitFor();
    expect(new URL(page.url()).hash).toBe('#/papers');
    expect(new URL(page.url()).search).toBe('');
    await expect
      .poll(() => page.getByTestId('connection-status').getAttribute('data-state'))
      .toBe('connected');
    await expect
      .poll(() => page.getByTestId('workspace-path').textContent())
      .toContain(app.workspace);
    expect(await page.title()).toContain('RLM Studio');
    await screenshot(page, 'shell-papers');
  });

  it.each(views)('reaches the %s view from the sidebar', async (id, label) => {
    await page.getByTestId(`nav-${id}`).click();
    await page.getByTestId(`view-${id}`).waitFor();
    expect(new URL(page.url()).hash).toBe(`#/${id}`);
    expect(await page.getByTestId(`view-${id}`).textContent()).toContain(label);
    // Every view is built: none still says which issue brings it.
    expect(await page.getByTestId(`view-${id}`).textContent()).not.toContain('Not built yet');
    await screenshot(page, `view-${id}`);
  });

  it('reaches every view by keyboard and shows the shortcuts help', async () => {
    for (const [index, [id]] of views.entries()) {
      await page.keyboard.press(`Control+${String(index + 1)}`);
      await page.getByTestId(`view-${id}`).waitFor();
    }
    await page.keyboard.press('Shift+?');
    await page.getByTestId('shortcuts-help').waitFor();
    await screenshot(page, 'shortcuts-help');
    await page.keyboard.press('Escape');
    await page.getByTestId('shortcuts-help').waitFor({ state: 'detached' });
  });

  it('toggles the theme through the engine and keeps it after a reload', async () => {
    const before = await page.evaluate(() => document.documentElement.dataset.theme);
    await page.getByTestId('theme-toggle').click();
    const expected = before === 'dark' ? 'light' : 'dark';
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
      .toBe(expected);
    await page.reload();
    await page.getByTestId('view-train').waitFor();
    await expect
      .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
      .toBe(expected);
    await screenshot(page, `theme-${expected}`);
    if (expected !== 'dark') {
      await page.getByTestId('theme-toggle').click();
      await expect
        .poll(() => page.evaluate(() => document.documentElement.dataset.theme))
        .toBe('dark');
    }
    await page.getByTestId('nav-papers').click();
    await screenshot(page, 'shell-dark');
  });

  it('logged no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
