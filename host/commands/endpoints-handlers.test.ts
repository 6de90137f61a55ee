import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultEndpointBaseUrls,
  modelEndpointKindIds,
  type ApiEvent,
  type ResponseFrame,
} from '../../app/api/index.ts';
import {
  createEndpointProvider,
  FileApiKeyVault,
  OPENAI_BASE_URL,
  modelEndpointKinds,
  parseModelSpec,
} from '../../app/models/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { composeEngine } from '../compose/compose.ts';
import {
  ENDPOINTS_SETTING_KEY,
  endpointHandlers,
  findSavedEndpoint,
} from './endpoints-handlers.ts';
import type { Host } from './command-host.ts';

const KEY = 'sk-test-0123456789abcdefSECRETSECRET';
const OTHER_KEY = 'sk-test-9876543210zyxwvuANOTHERKEY';

let dir: string;
let workspace: Workspace;
let host: Host;
let events: ApiEvent[];
let nextId = 1;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-endpoints-'));
  workspace = openWorkspace(dir);
  host = composeEngine({ workspace, shell: 'serve', now: () => 1000 }).host;
  events = [];
  host.onEvent((event) => events.push(event));
});
afterEach(() => {
  workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

async function call(command: string, payload: unknown): Promise<ResponseFrame> {
  return host.handle({ kind: 'request', id: nextId++, command, payload });
}

async function ok(command: string, payload: unknown): Promise<Record<string, unknown>> {
  const frame = await call(command, payload);
  if (!frame.ok) throw new Error(`${frame.error.name}: ${frame.error.message}`);
  return frame.result as Record<string, unknown>;
}

const vllm = {
  name: 'Lab vLLM',
  kind: 'openai-compatible',
  baseUrl: 'http://127.0.0.1:8000/v1',
  model: 'Qwen/Qwen3-8B',
};

async function saveVllm(apiKey?: string): Promise<{ id: string; hasKey: boolean; spec: string }> {
  const result = await ok('models.saveEndpoint', { endpoint: vllm, ...(apiKey ? { apiKey } : {}) });
  return result.endpoint as { id: string; hasKey: boolean; spec: string };
}

/** Every byte SQLite has written for this workspace: the database and its WAL. */
function databaseBytes(): string {
  return ['', '-wal', '-shm']
    .map((suffix) => `${workspace.databasePath}${suffix}`)
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');
}

describe('model endpoints', () => {
  it('stores a key in the vault and nowhere else', async () => {
    const saved = await saveVllm(KEY);
    expect(saved).toMatchObject({
      ...vllm,
      hasKey: true,
      spec: 'openai-compatible:Qwen/Qwen3-8B@http://127.0.0.1:8000/v1',
    });

    const vault = new FileApiKeyVault(dir);
    expect(await vault.get(`endpoint:${saved.id}`)).toBe(KEY);

    const listed = await call('models.endpoints', {});
    expect(listed).toMatchObject({ ok: true, result: { endpoints: [saved] } });
    expect(JSON.stringify(listed)).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
    expect(events).toEqual([{ kind: 'models.endpointsChanged', at: 1000 }]);

    // The list itself is in SQLite (so the check below looks where it should), the key is not.
    const bytes = databaseBytes();
    expect(bytes).toContain('Lab vLLM');
    expect(bytes).not.toContain(KEY);
    for (const file of [vault.keysPath, vault.secretPath]) {
      expect(readFileSync(file).toString('latin1')).not.toContain(KEY);
    }
  });

  it('keeps, replaces and forgets the key of an endpoint being edited', async () => {
    const saved = await saveVllm(KEY);
    const vault = new FileApiKeyVault(dir);
    const ref = `endpoint:${saved.id}`;

    const renamed = await ok('models.saveEndpoint', {
      endpoint: { ...vllm, id: saved.id, name: 'Renamed' },
    });
    expect(renamed.endpoint).toMatchObject({ id: saved.id, name: 'Renamed', hasKey: true });
    expect(await vault.get(ref)).toBe(KEY);

    const replaced = await call('models.saveEndpoint', {
      endpoint: { ...vllm, id: saved.id },
      apiKey: OTHER_KEY,
    });
    expect(JSON.stringify(replaced)).not.toContain(OTHER_KEY);
    expect(await vault.get(ref)).toBe(OTHER_KEY);

    const forgotten = await ok('models.saveEndpoint', {
      endpoint: { ...vllm, id: saved.id },
      forgetKey: true,
    });
    expect(forgotten.endpoint).toMatchObject({ hasKey: false });
    expect(await vault.get(ref)).toBeUndefined();
    expect(await ok('models.endpoints', {})).toEqual({ endpoints: [forgotten.endpoint] });
  });

  it('deletes an endpoint and its key', async () => {
    const saved = await saveVllm(KEY);
    const vault = new FileApiKeyVault(dir);
    expect(await ok('models.deleteEndpoint', { id: saved.id })).toEqual({ deleted: true });
    expect(await vault.get(`endpoint:${saved.id}`)).toBeUndefined();
    expect(await vault.refs()).toEqual([]);
    expect(await ok('models.endpoints', {})).toEqual({ endpoints: [] });
    expect(events.map((event) => event.kind)).toEqual([
      'models.endpointsChanged',
      'models.endpointsChanged',
    ]);
    expect(await ok('models.deleteEndpoint', { id: saved.id })).toEqual({ deleted: false });
  });

  it.each([
    [{ ...vllm, baseUrl: 'ftp://example.org' }, 'endpoint.baseUrl'],
    [{ ...vllm, baseUrl: 'not a url' }, 'endpoint.baseUrl'],
    [{ ...vllm, kind: 'gemini' }, 'endpoint.kind'],
    [{ ...vllm, model: '  ' }, 'endpoint.model'],
    [{ ...vllm, name: '' }, 'endpoint.name'],
    [{ ...vllm, apiKey: KEY }, 'endpoint'],
  ])('refuses an invalid endpoint, naming the field (%o)', async (endpoint, field) => {
    const frame = await call('models.saveEndpoint', { endpoint });
    expect(frame).toMatchObject({ ok: false, error: { name: 'ApiValidationError' } });
    if (frame.ok) return;
    expect(frame.error.fields).toEqual([field]);
    expect(frame.error.message).toContain(`field '${field}'`);
    expect(frame.error.message).not.toContain(KEY);
    expect(await ok('models.endpoints', {})).toEqual({ endpoints: [] });
  });

  it('refuses credentials in the URL without echoing them', async () => {
    const frame = await call('models.saveEndpoint', {
      endpoint: { ...vllm, baseUrl: `http://user:${KEY}@127.0.0.1:8000/v1` },
    });
    expect(frame).toMatchObject({ ok: false, error: { fields: ['endpoint.baseUrl'] } });
    expect(JSON.stringify(frame)).not.toContain(KEY);
  });

  it('refuses an empty key, and a key given together with forgetKey', async () => {
    const empty = await call('models.saveEndpoint', { endpoint: vllm, apiKey: '   ' });
    expect(empty).toMatchObject({ ok: false, error: { fields: ['apiKey'] } });
    const both = await call('models.saveEndpoint', {
      endpoint: vllm,
      apiKey: KEY,
      forgetKey: true,
    });
    expect(both).toMatchObject({ ok: false, error: { fields: ['forgetKey'] } });
    expect(JSON.stringify(both)).not.toContain(KEY);
  });

  it('says when an edited endpoint does not exist, and stores no key for it', async () => {
    const frame = await call('models.saveEndpoint', {
      endpoint: { ...vllm, id: 'gone' },
      apiKey: KEY,
    });
    expect(frame).toMatchObject({ ok: false, error: { name: 'ModelEndpointNotFoundError' } });
    expect(await new FileApiKeyVault(dir).refs()).toEqual([]);
  });

  it('names a damaged settings row instead of dropping the endpoints', async () => {
    workspace.db
      .prepare('INSERT INTO settings (key, value, updated_at) VALUES (?, ?, 0)')
      .run(ENDPOINTS_SETTING_KEY, '[{"id": 3}]');
    const frame = await call('models.endpoints', {});
    expect(frame).toMatchObject({ ok: false, error: { name: 'ModelEndpointsDamagedError' } });
  });

  it('parses every kind of the contract as a model spec at its default address', () => {
    // One table (app/api's) names the kinds and their addresses; the spec parser reads it.
    expect(modelEndpointKinds).toBe(modelEndpointKindIds);
    for (const kind of modelEndpointKindIds) {
      const baseUrl = defaultEndpointBaseUrls[kind] || 'http://127.0.0.1:9999/v1';
      const parsed = parseModelSpec(
        `${kind}:m${kind === 'openai-compatible' ? `@${baseUrl}` : ''}`,
      );
      expect(parsed).toMatchObject({ scheme: kind, model: 'm', baseUrl });
    }
  });
});

describe('local Ollama', () => {
  it('offers the models a local server answers with, and nothing when none answers', async () => {
    const found = endpointHandlers(workspace, () => undefined, Date.now, {
      discover: () => Promise.resolve(['llama3.2:latest', 'qwen3:8b']),
    });
    expect(await found['models.discoverOllama']({})).toEqual({
      available: true,
      baseUrl: 'http://127.0.0.1:11434/v1',
      models: ['llama3.2:latest', 'qwen3:8b'],
    });
    const none = endpointHandlers(workspace, () => undefined, Date.now, {
      discover: () => Promise.resolve([]),
    });
    expect(await none['models.discoverOllama']({})).toMatchObject({
      available: false,
      models: [],
    });
  });
});

describe('testing an endpoint', () => {
  let server: Server | undefined;
  const authorizations: (string | undefined)[] = [];

  afterEach(async () => {
    authorizations.length = 0;
    const running = server;
    server = undefined;
    if (running) {
      running.closeAllConnections();
      await new Promise((resolve) => running.close(resolve));
    }
  });

  /** A chat-completions server on 127.0.0.1 that answers every request with `answer`. */
  async function fakeServer(answer: 'ok' | 'unauthorized'): Promise<string> {
    server = createServer((req, res) => {
      authorizations.push(req.headers.authorization);
      req.resume();
      req.on('end', () => {
        if (answer === 'unauthorized') {
          res.writeHead(401, { 'content-type': 'application/json' });
          // Some servers echo the key they refused; it must not reach the user unredacted.
          res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${KEY}` } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta: object, finish: string | null) =>
          `data: ${JSON.stringify({
            id: 'c1',
            object: 'chat.completion.chunk',
            created: 0,
            model: 'm',
            choices: [{ index: 0, delta, finish_reason: finish }],
          })}\n\n`;
        res.write(chunk({ role: 'assistant', content: 'ok' }, null));
        res.write(chunk({}, 'stop'));
        res.end('data: [DONE]\n\n');
      });
    });
    const listening = server;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${String((listening.address() as AddressInfo).port)}/v1`;
  }

  it('answers ok with the reply, sending the stored key', async () => {
    const baseUrl = await fakeServer('ok');
    const saved = (await ok('models.saveEndpoint', { endpoint: { ...vllm, baseUrl }, apiKey: KEY }))
      .endpoint as { id: string };
    const result = await ok('models.testEndpoint', { id: saved.id });
    expect(result).toMatchObject({ ok: true, reply: 'ok' });
    expect(authorizations).toEqual([`Bearer ${KEY}`]);
  });

  it('returns a refused key as a named, redacted error', async () => {
    const baseUrl = await fakeServer('unauthorized');
    const saved = (await ok('models.saveEndpoint', { endpoint: { ...vllm, baseUrl }, apiKey: KEY }))
      .endpoint as { id: string };
    const frame = await call('models.testEndpoint', { id: saved.id });
    expect(frame).toMatchObject({
      ok: true,
      result: { ok: false, error: { name: 'ModelAuthError' } },
    });
    expect(JSON.stringify(frame)).not.toContain(KEY);
    expect(JSON.stringify(events)).not.toContain(KEY);
  });

  it('names an endpoint nobody answers at, without retrying for long', async () => {
    const baseUrl = await fakeServer('ok');
    const running = server;
    server = undefined;
    running?.closeAllConnections();
    await new Promise((resolve) => running?.close(resolve));
    const saved = (await ok('models.saveEndpoint', { endpoint: { ...vllm, baseUrl } }))
      .endpoint as {
      id: string;
    };
    const started = Date.now();
    const result = await ok('models.testEndpoint', { id: saved.id });
    expect(result).toMatchObject({ ok: false, error: { name: expect.any(String) as unknown } });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('says a key is missing for OpenAI itself', async () => {
    const saved = (
      await ok('models.saveEndpoint', {
        endpoint: { name: 'OpenAI', kind: 'openai', baseUrl: OPENAI_BASE_URL, model: 'gpt-4o' },
      })
    ).endpoint as { id: string };
    const result = await ok('models.testEndpoint', { id: saved.id });
    expect(result).toMatchObject({ ok: false, error: { name: 'MissingApiKeyError' } });
  });

  it('lets a run name a saved endpoint, which then calls with the stored key', async () => {
    const baseUrl = await fakeServer('ok');
    const saved = (await ok('models.saveEndpoint', { endpoint: { ...vllm, baseUrl }, apiKey: KEY }))
      .endpoint as { id: string; spec: string };
    const byName = findSavedEndpoint(workspace, `endpoint: ${vllm.name}`);
    expect(byName).toMatchObject({ id: saved.id, baseUrl, model: vllm.model });
    expect(findSavedEndpoint(workspace, `endpoint:${saved.id}`)).toEqual(byName);
    // The spec Settings shows for the endpoint finds it too, so its key goes along.
    expect(findSavedEndpoint(workspace, saved.spec)).toEqual(byName);
    expect(findSavedEndpoint(workspace, 'scripted:demo.json')).toBeUndefined();
    expect(() => findSavedEndpoint(workspace, 'endpoint:Nope')).toThrow(
      /no saved model endpoint named 'Nope'; saved: 'Lab vLLM'/,
    );
    if (byName === undefined) throw new Error('not found');
    const provider = await createEndpointProvider(byName, new FileApiKeyVault(dir));
    const completion = await provider.complete({
      messages: [{ role: 'user', content: 'hi' }],
      agentId: '0',
      turn: 0,
      maxTokens: 8,
      temperature: 0,
    });
    expect(completion.text).toBe('ok');
    expect(authorizations).toEqual([`Bearer ${KEY}`]);
  });

  it('refuses an unknown endpoint id', async () => {
    const frame = await call('models.testEndpoint', { id: 'nope' });
    expect(frame).toMatchObject({ ok: false, error: { name: 'ModelEndpointNotFoundError' } });
  });
});

describe('reopening the workspace', () => {
  it('finds the endpoints and their keys again', async () => {
    const saved = await saveVllm(KEY);
    workspace.close();
    workspace = openWorkspace(dir);
    host = composeEngine({ workspace, shell: 'serve' }).host;
    expect(await ok('models.endpoints', {})).toMatchObject({
      endpoints: [{ id: saved.id, hasKey: true }],
    });
    expect(await new FileApiKeyVault(dir).get(`endpoint:${saved.id}`)).toBe(KEY);
  });
});
