import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { SseClient } from './sse-http.ts';

// A server that streams two events and [DONE] (in separate writes, as real servers do), and
// records the client port of every request: one port means one reused connection.
let server: Server | null = null;
const ports: number[] = [];

async function start(endAfterMs = 0): Promise<string> {
  ports.length = 0;
  server = createServer((request, response) => {
    ports.push(request.socket.remotePort ?? -1);
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
      response.write('data: {"n":2}\n\n');
      const end = () => response.end('data: [DONE]\n\n');
      if (endAfterMs > 0) setTimeout(end, endAfterMs);
      else end();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1/chat`;
}

afterEach(async () => {
  const current = server;
  server = null;
  if (!current) return;
  current.closeAllConnections();
  await new Promise((resolve) => current.close(resolve));
});

const post = (url: string) => ({
  url,
  headers: { 'content-type': 'application/json' },
  body: '{}',
  signal: new AbortController().signal,
});

describe('SseClient', () => {
  it('yields every event and reuses one keep-alive connection for calls in a row', async () => {
    const url = await start();
    const client = new SseClient();
    for (let call = 0; call < 4; call++) {
      const events: unknown[] = [];
      for await (const event of client.stream(post(url))) events.push(event);
      expect(events).toEqual([{ n: 1 }, { n: 2 }]);
      await sleep(20); // the socket goes back to the pool once the body's end is read
    }
    expect(ports).toHaveLength(4);
    expect(new Set(ports).size).toBe(1);
  });

  it('keeps the connections of 300 concurrent streams open for the next 300', async () => {
    const url = await start();
    const client = new SseClient();
    const drain = async () => {
      const events: unknown[] = [];
      for await (const event of client.stream(post(url))) events.push(event);
      return events.length;
    };
    for (let burst = 0; burst < 2; burst++) {
      expect(await Promise.all(Array.from({ length: 300 }, drain))).toEqual(Array(300).fill(2));
      await sleep(50);
    }
    expect(ports).toHaveLength(600);
    expect(new Set(ports).size).toBe(300);
  });

  it('closes the connection of a stream its consumer left before [DONE]', async () => {
    // The end comes later, so the body is still open when the consumer leaves (a body that has
    // fully arrived leaves its connection clean and reusable, whoever reads it).
    const url = await start(100);
    const client = new SseClient();
    for await (const event of client.stream(post(url))) {
      expect(event).toEqual({ n: 1 });
      break;
    }
    await sleep(20);
    const events: unknown[] = [];
    for await (const event of client.stream(post(url))) events.push(event);
    expect(events).toHaveLength(2);
    expect(ports).toHaveLength(2);
    expect(ports[1]).not.toBe(ports[0]);
  });
});
