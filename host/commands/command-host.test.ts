import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiEvent } from '../../app/api/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine } from '../compose/compose.ts';
import type { Host } from './command-host.ts';

let dir: string;
let workspace: Workspace;
let host: Host;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-host-'));
  workspace = openWorkspace(dir);
  host = composeEngine({ workspace, shell: 'serve', now: () => 1234 }).host;
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('engine host', () => {
  it('answers a valid request with its result', async () => {
    const frame = await host.handle({
      kind: 'request',
      id: 7,
      command: 'app.ping',
      payload: { message: 'hi' },
    });
    expect(frame).toEqual({
      kind: 'response',
      id: 7,
      ok: true,
      result: { message: 'hi', receivedAt: 1234 },
    });
  });

  it('names the offending field of an invalid payload', async () => {
    const frame = await host.handle({
      kind: 'request',
      id: 1,
      command: 'app.ping',
      payload: { message: 42 },
    });
    expect(frame.ok).toBe(false);
    if (frame.ok) return;
    expect(frame.error.name).toBe('ApiValidationError');
    expect(frame.error.message).toContain("request 'app.ping'");
    expect(frame.error.message).toContain("field 'message'");
    expect(frame.error.fields).toEqual(['message']);
  });

  it('refuses unknown fields, unknown commands and malformed frames', async () => {
    const extra = await host.handle({
      kind: 'request',
      id: 2,
      command: 'app.info',
      payload: { x: 1 },
    });
    expect(extra.ok).toBe(false);
    const unknown = await host.handle({ kind: 'request', id: 3, command: 'app.nope', payload: {} });
    expect(unknown).toMatchObject({ id: 3, ok: false, error: { name: 'UnknownCommandError' } });
    const garbage = await host.handle('not a frame');
    expect(garbage).toMatchObject({ id: -1, ok: false, error: { name: 'ApiValidationError' } });
    const noId = await host.handle({ kind: 'request', command: 'app.ping', payload: {} });
    expect(noId).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("field 'id'") as unknown },
    });
  });

  it('stores settings and tells every subscriber', async () => {
    const seen: ApiEvent[] = [];
    const stop = host.onEvent((event) => seen.push(event));
    const frame = await host.handle({
      kind: 'request',
      id: 4,
      command: 'settings.update',
      payload: { theme: 'dark' },
    });
    expect(frame).toMatchObject({ ok: true, result: { theme: 'dark' } });
    expect(seen).toEqual([
      { kind: 'settings.changed', at: 1234, settings: { theme: 'dark', embeddingModel: null } },
    ]);
    stop();
    await host.handle({
      kind: 'request',
      id: 5,
      command: 'settings.update',
      payload: { theme: 'light' },
    });
    expect(seen).toHaveLength(1);
    expect(workspace.settings.get()).toEqual({ theme: 'light', embeddingModel: null });
  });

  it('refuses an invalid setting value without storing it', async () => {
    const frame = await host.handle({
      kind: 'request',
      id: 6,
      command: 'settings.update',
      payload: { theme: 'neon' },
    });
    expect(frame).toMatchObject({ ok: false, error: { fields: ['theme'] } });
    expect(workspace.settings.get().theme).toBe('system');
  });

  it('says native dialogs are missing in serve mode, and uses them when the shell has them', async () => {
    const serve = await host.handle({
      kind: 'request',
      id: 8,
      command: 'dialog.openPaths',
      payload: { title: 'x' },
    });
    expect(serve).toMatchObject({ ok: false, error: { name: 'NativeDialogUnavailableError' } });
    const desktop = composeEngine({
      workspace,
      shell: 'electron',
      dialogs: {
        openPaths: (options) => Promise.resolve({ paths: [options.title], canceled: false }),
      },
    }).host;
    const answer = await desktop.handle({
      kind: 'request',
      id: 9,
      command: 'dialog.openPaths',
      payload: { title: 'a.pdf' },
    });
    expect(answer).toMatchObject({ ok: true, result: { paths: ['a.pdf'], canceled: false } });
    const info = await desktop.handle({
      kind: 'request',
      id: 10,
      command: 'app.info',
      payload: {},
    });
    expect(info).toMatchObject({
      ok: true,
      result: { shell: 'electron', capabilities: { nativeDialogs: true } },
    });
  });

  it('keeps working when a handler throws', async () => {
    workspace.close();
    const frame = await host.handle({
      kind: 'request',
      id: 11,
      command: 'settings.get',
      payload: {},
    });
    expect(frame).toMatchObject({ ok: false, error: { name: 'Error' } });
    workspace = openWorkspace(dir);
  });
});
