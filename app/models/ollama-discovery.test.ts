// discoverOllama against a fake /api/tags, a closed port and a server that never answers.
import { describe, expect, it } from 'vitest';
import { sendJson, startFakeServer } from './fake-servers.test-support.ts';
import { discoverOllama } from './ollama-discovery.ts';

describe('discoverOllama', () => {
  it('lists the models of a server that answers', async () => {
    const server = await startFakeServer((req, res) => {
      if (req.url === '/api/tags') {
        sendJson(res, 200, { models: [{ name: 'llama3.2:3b', size: 1 }, { name: 'qwen3:8b' }] });
      } else sendJson(res, 404, {});
    });
    try {
      expect(await discoverOllama(server.origin)).toEqual(['llama3.2:3b', 'qwen3:8b']);
      expect(await discoverOllama(`${server.origin}/v1/`)).toEqual(['llama3.2:3b', 'qwen3:8b']);
    } finally {
      await server.close();
    }
  });

  it('returns [] for a closed port, a silent server or one that is not Ollama', async () => {
    const closed = await startFakeServer(() => undefined);
    await closed.close();
    expect(await discoverOllama(closed.origin)).toEqual([]);

    const silent = await startFakeServer(() => undefined);
    const started = performance.now();
    try {
      expect(await discoverOllama(silent.origin, 100)).toEqual([]);
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await silent.close();
    }

    const other = await startFakeServer((_req, res) => {
      sendJson(res, 200, { hello: 'world' });
    });
    try {
      expect(await discoverOllama(other.origin)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});
