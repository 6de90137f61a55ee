// Browser-test harness: starts the real `rlm-studio serve` on a fresh workspace and drives Debian's
// Chromium through playwright-core. Screenshots land in test-artifacts/e2e/.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

const root = new URL('..', import.meta.url).pathname;
export const artifactsDir = join(root, 'test-artifacts', 'e2e');

export interface ServedApp {
  url: string;
  origin: string;
  workspace: string;
  stop(): Promise<void>;
}

/** `sample: true` lets the fresh workspace get the sample papers and demo run, as a user's does. */
export async function serveApp(options: { sample?: boolean } = {}): Promise<ServedApp> {
  const workspace = mkdtempSync(join(tmpdir(), 'rlm-e2e-'));
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(root, 'bin', 'rlm-studio.js'),
      '--workspace',
      workspace,
      'serve',
      '--json',
      ...(options.sample ? [] : ['--no-sample']),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    child.once('exit', (code) => {
      reject(new Error(`rlm-studio serve exited with ${String(code)}`));
    });
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    origin: new URL(url).origin,
    workspace,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(workspace, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Debian's Chromium, headless, with a fresh profile (playwright passes it as --user-data-dir). */
export async function launchBrowser(): Promise<BrowserSession> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'rlm-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-quic',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(artifactsDir, { recursive: true });
  const path = join(artifactsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Collects the page's uncaught errors and console errors, so a test can assert there were none. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return errors;
}

/** The served app opened in a fresh Chromium page, with the page's errors collected. */
export interface OpenedApp {
  app: ServedApp;
  session: BrowserSession;
  page: Page;
  pageErrors: string[];
  close(): Promise<void>;
}

export async function openApp(options: { sample?: boolean } = {}): Promise<OpenedApp> {
  const app = await serveApp(options);
  const session = await launchBrowser();
  const page = await session.context.newPage();
  const pageErrors = collectPageErrors(page);
  await page.goto(app.url);
  return {
    app,
    session,
    page,
    pageErrors,
    async close() {
      await session.close();
      await app.stop();
    },
  };
}
