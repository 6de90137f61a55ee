// An OpenAI-compatible chat server for the RLM benchmark, on 127.0.0.1 only: it answers every
// request after a fixed delay, streaming (SSE) or not, with the reply a benchmark agent needs for
// its turn (read from the "Turn N of M" line the loop writes). Bounded: it serves until closed.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeServer {
  url: string;
  requests: () => number;
  maxInFlight: () => number;
  close(): Promise<void>;
}

type Reply = (messages: { role: string; content: string }[]) => string;

export async function startFakeOpenAI(delayMs: number, reply: Reply): Promise<FakeServer> {
  let requests = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      requests++;
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const parsed = JSON.parse(body) as {
        messages: { role: string; content: string }[];
        stream?: boolean;
        model: string;
      };
      const text = reply(parsed.messages);
      const usage = {
        prompt_tokens: Math.ceil(body.length / 4),
        completion_tokens: Math.ceil(text.length / 4),
        total_tokens: 0,
      };
      setTimeout(() => {
        inFlight--;
        if (parsed.stream) {
          const base = {
            id: 'c',
            object: 'chat.completion.chunk',
            created: 0,
            model: parsed.model,
          };
          // The whole stream in one write: the answer is complete when the delay ends, and four
          // writes (four packets, four reads on the client) cost both processes CPU for nothing.
          const body =
            `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] })}\n\n` +
            `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n` +
            `data: ${JSON.stringify({ ...base, choices: [], usage })}\n\n` +
            'data: [DONE]\n\n';
          response.writeHead(200, {
            'content-type': 'text/event-stream',
            'content-length': Buffer.byteLength(body),
          });
          response.end(body);
        } else {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(
            JSON.stringify({
              id: 'c',
              object: 'chat.completion',
              created: 0,
              model: parsed.model,
              choices: [
                { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' },
              ],
              usage,
            }),
          );
        }
      }, delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests: () => requests,
    maxInFlight: () => maxInFlight,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Which turn a loop request is for (the turn prompt says "Turn N of M"), 1-based. */
export function turnOf(messages: { role: string; content: string }[]): number {
  const match = /Turn (\d+) of \d+/.exec(messages.at(-1)?.content ?? '');
  return match ? Number(match[1]) : 1;
}
