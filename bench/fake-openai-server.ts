// An OpenAI-compatible chat server for the RLM benchmark, on 127.0.0.1 only: it answers every
// request after a fixed delay, streaming (SSE) or not, with the reply a benchmark agent needs for
// its turn (read from the "Turn N of M" line the loop writes). Bounded: it serves until closed.
//
// It speaks HTTP/1.1 over node:net itself (keep-alive, Content-Length bodies: what the engine's
// client sends) rather than through node:http. It shares the engine's two cores, and node:http's
// request and response objects cost it ~0.24 ms of CPU per call, a quarter of the load phase's
// CPU: a real model server runs on another machine, so this one should take as little as it can.
// Anything it does not understand gets a 400 and the connection closed.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeServer {
  url: string;
  requests: () => number;
  maxInFlight: () => number;
  /** Connections accepted. */
  connections: () => number;
  /** Starts the counts again (requests, most in flight at once, connections). */
  resetCounters(): void;
  /** Closes every keep-alive connection with no request in progress, as a server's idle timeout does. */
  closeIdle(): void;
  close(): Promise<void>;
}

type Reply = (messages: { role: string; content: string }[]) => string;

interface ChatRequest {
  messages: { role: string; content: string }[];
  stream?: boolean;
  model: string;
}

const headerEnd = Buffer.from('\r\n\r\n');

/** Longer than ~60 lines: the server, its counters and its controls share one closure. */
export async function startFakeOpenAI(delayMs: number, reply: Reply): Promise<FakeServer> {
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  /** Connections with a request waiting for its answer. */
  const busy = new Set<Socket>();

  const answer = (socket: Socket, body: string) => {
    let parsed: ChatRequest;
    try {
      parsed = JSON.parse(body) as ChatRequest;
    } catch {
      fail(socket, 'the body is not JSON');
      return;
    }
    requests++;
    inFlight++;
    busy.add(socket);
    maxInFlight = Math.max(maxInFlight, inFlight);
    const text = reply(parsed.messages);
    const usage = {
      prompt_tokens: Math.ceil(body.length / 4),
      completion_tokens: Math.ceil(text.length / 4),
      total_tokens: 0,
    };
    setTimeout(() => {
      inFlight--;
      busy.delete(socket);
      if (socket.destroyed) return;
      socket.write(
        parsed.stream ? streamed(parsed.model, text, usage) : whole(parsed.model, text, usage),
      );
    }, delayMs);
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    connections++;
    socket.setNoDelay(true);
    readRequests(socket, (body) => {
      answer(socket, body);
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    maxInFlight: () => maxInFlight,
    connections: () => connections,
    resetCounters: () => {
      requests = 0;
      connections = 0;
      maxInFlight = inFlight;
    },
    closeIdle: () => {
      for (const socket of sockets) if (!busy.has(socket)) socket.end();
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/**
 * Calls `onBody` with each request's body. One request at a time per connection (the client does
 * not pipeline), but a whole one may arrive in pieces: wait for the headers, then for
 * Content-Length bytes of body.
 */
function readRequests(socket: Socket, onBody: (body: string) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const end = pending.indexOf(headerEnd);
      if (end < 0) return;
      const head = pending.toString('latin1', 0, end);
      const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1];
      if (!head.startsWith('POST ') || length === undefined) {
        fail(socket, 'expected a POST with a Content-Length');
        return;
      }
      const total = end + headerEnd.length + Number(length);
      if (pending.length < total) return;
      const body = pending.toString('utf8', end + headerEnd.length, total);
      pending = pending.subarray(total);
      onBody(body);
    }
  });
}

function response(contentType: string, body: string): string {
  return (
    `HTTP/1.1 200 OK\r\ncontent-type: ${contentType}\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\n` +
    `connection: keep-alive\r\n\r\n${body}`
  );
}

// The whole stream in one write: the answer is complete when the delay ends, and several writes
// (several packets, several reads on the client) cost both processes CPU for nothing.
function streamed(model: string, text: string, usage: object): string {
  const base = { id: 'c', object: 'chat.completion.chunk', created: 0, model };
  return response(
    'text/event-stream',
    `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n` +
      `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
      `data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n` +
      'data: [DONE]\n\n',
  );
}

function whole(model: string, text: string, usage: object): string {
  return response(
    'application/json',
    JSON.stringify({
      id: 'c',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage,
    }),
  );
}

function fail(socket: Socket, why: string): void {
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: ${String(Buffer.byteLength(why))}\r\nconnection: close\r\n\r\n${why}`,
  );
}

/** Which turn a loop request is for (the turn prompt says "Turn N of M"), 1-based. */
export function turnOf(messages: { role: string; content: string }[]): number {
  const match = /Turn (\d+) of \d+/.exec(messages.at(-1)?.content ?? '');
  return match ? Number(match[1]) : 1;
}
