// Settings > Models in Chromium against the real `rlm-studio serve`: add an OpenAI-compatible
// endpoint with a key through the form, see "key stored" after a reload, test it (it fails, by
// name), and delete it. The key never appears in the page nor in the database.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { screenshot, type ServedApp, openApp, type OpenedApp } from './harness.ts';

const KEY = 'sk-e2e-0123456789abcdefghSECRET';
/** Port 9 (discard), which fetch refuses outright: a test of the endpoint fails at once, by name. */
const BASE_URL = 'http://127.0.0.1:9/v1';
const NAME = 'Lab vLLM';

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

const endpointRow = () => page.locator(`[data-testid="endpoint"][data-endpoint="${NAME}"]`);

async function expectNoKeyInPage(): Promise<void> {
  expect(await page.content()).not.toContain(KEY);
  const values = await page
    .locator('input')
    .evaluateAll((inputs) => inputs.map((input) => (input as HTMLInputElement).value));
  expect(values.join('\n')).not.toContain(KEY);
}

describe('settings: model endpoints', () => {
  it('opens from the sidebar, below the views', async () => {
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('view-settings').waitFor();
    expect(new URL(page.url()).hash).toBe('#/settings');
    await page.getByTestId('no-endpoints').waitFor();
    // No Ollama runs here: the section says so (or lists models on a machine that has one).
    await page.locator('[data-testid="ollama-none"], [data-testid="ollama-models"]').waitFor();
  });

  it('names the fields it cannot save', async () => {
    await page.getByTestId('endpoint-kind').selectOption('openai-compatible');
    expect(await page.getByTestId('endpoint-base-url').inputValue()).toBe('');
    await page.getByTestId('endpoint-save').click();
    const form = page.getByTestId('endpoint-form');
    await form.getByRole('alert').first().waitFor();
    expect(await form.locator('[aria-invalid="true"]').count()).toBe(3);
    await page.getByTestId('no-endpoints').waitFor();
  });

  it('adds an OpenAI-compatible endpoint with a key through the form', async () => {
    await page.getByTestId('endpoint-name').fill(NAME);
    await page.getByTestId('endpoint-base-url').fill(BASE_URL);
    await page.getByTestId('endpoint-model').fill('Qwen/Qwen3-8B');
    await page.getByTestId('endpoint-api-key').fill(KEY);
    expect(await page.getByTestId('endpoint-api-key').getAttribute('type')).toBe('password');
    await page.getByTestId('endpoint-save').click();

    await endpointRow().waitFor();
    await endpointRow().getByTestId('key-stored').waitFor();
    expect(await endpointRow().textContent()).toContain(
      `openai-compatible:Qwen/Qwen3-8B@${BASE_URL}`,
    );
    // The form is empty again, ready for the next endpoint.
    expect(await page.getByTestId('endpoint-api-key').inputValue()).toBe('');
    expect(await page.getByTestId('endpoint-name').inputValue()).toBe('');
    await expectNoKeyInPage();
  });

  it('lists it with "key stored" after a reload, never the key', async () => {
    await page.reload();
    await endpointRow().waitFor();
    expect(await endpointRow().getByTestId('key-stored').textContent()).toBe('key stored');
    await expectNoKeyInPage();
  });

  it('edits it with the key write-only: "stored" and a replace button', async () => {
    await endpointRow().getByTestId('endpoint-edit').click();
    await page.getByTestId('endpoint-key-stored').waitFor();
    expect(await page.getByTestId('endpoint-name').inputValue()).toBe(NAME);
    expect(await page.getByTestId('endpoint-api-key').count()).toBe(0);
    await page.getByTestId('endpoint-key-replace').click();
    expect(await page.getByTestId('endpoint-api-key').inputValue()).toBe('');
    await expectNoKeyInPage();
    await screenshot(page, 'settings-edit');
  });

  it('tests it: nothing answers there, so the error comes back named and redacted', async () => {
    await endpointRow().getByTestId('endpoint-test').click();
    const result = endpointRow().getByTestId('endpoint-test-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.textContent()).toMatch(/^\w+Error: /);
    await expectNoKeyInPage();
    // The view scrolls inside the shell, so a full-page shot needs a window tall enough for it.
    await page.setViewportSize({ width: 1280, height: 1250 });
    await screenshot(page, 'settings');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('never wrote the key into the workspace database', () => {
    const files = ['rlm-studio.sqlite', 'rlm-studio.sqlite-wal']
      .map((name) => join(app.workspace, name))
      .filter((path) => existsSync(path));
    const bytes = files.map((path) => readFileSync(path).toString('latin1')).join('');
    expect(bytes).toContain(NAME);
    expect(bytes).not.toContain(KEY);
  });

  it('deletes it', async () => {
    await endpointRow().getByTestId('endpoint-delete').click();
    await endpointRow().getByTestId('endpoint-delete-confirm').click();
    await page.getByTestId('no-endpoints').waitFor();
    await page.reload();
    await page.getByTestId('no-endpoints').waitFor();
  });

  it('logged no page errors', () => {
    expect(pageErrors).toEqual([]);
  });
});
