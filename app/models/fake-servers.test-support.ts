// Local HTTP servers on 127.0.0.1 that speak just enough of the OpenAI and Anthropic streaming
// wire formats for the provider tests. Tests never reach a real API.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type FakeHandler = (
  request: RecordedRequest,
  response: ServerResponse,
  index: number,
) => void | Promise<void>;

export interface FakeServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  requests: RecordedRequest[];
  /** Resolves when the client has gone away from request `index` (aborted or finished). */
  closed(index: number): Promise<void>;
  close(): Promise<void>;
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  const closedWaiters = new Map<number, Promise<void>>();
  const server = createServer((req, res) => {
    const index = requests.length;
    closedWaiters.set(
      index,
      new Promise((resolve) => {
        res.on('close', () => {
          resolve();
        });
      }),
    );
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: text === '' ? undefined : (JSON.parse(text) as unknown),
      };
      requests.push(recorded);
      void Promise.resolve(handler(recorded, res, index)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    closed: (index) => closedWaiters.get(index) ?? Promise.reject(new Error(`no request ${index}`)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
}

export function openAIChunk(
  content: string | null,
  finishReason: string | null = null,
  model = 'fake-model',
): string {
  const choice = {
    index: 0,
    delta: content === null ? {} : { content },
    finish_reason: finishReason,
  };
  const chunk = { id: 'c1', object: 'chat.completion.chunk', created: 0, model, choices: [choice] };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A whole OpenAI-style stream: one chunk per piece, then (optionally) the usage chunk. */
export function sendOpenAIStream(
  res: ServerResponse,
  pieces: string[],
  usage?: { prompt_tokens: number; completion_tokens: number },
): void {
  startSse(res);
  for (const piece of pieces) res.write(openAIChunk(piece));
  res.write(openAIChunk(null, 'stop'));
  if (usage) {
    const chunk = {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'fake-model',
      choices: [],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    };
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  res.end('data: [DONE]\n\n');
}

export function anthropicEvent(type: string, data: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

export function anthropicStart(inputTokens: number, model = 'claude-fake'): string {
  const message = {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: 1 },
  };
  return (
    anthropicEvent('message_start', { message }) +
    anthropicEvent('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
  );
}

export function anthropicText(text: string): string {
  return anthropicEvent('content_block_delta', { index: 0, delta: { type: 'text_delta', text } });
}

/** A whole Anthropic messages stream, as the real API sends it (with a ping). */
export function sendAnthropicStream(
  res: ServerResponse,
  pieces: string[],
  usage: { input: number; output: number },
  stopReason = 'end_turn',
): void {
  startSse(res);
  res.write(anthropicStart(usage.input));
  res.write(anthropicEvent('ping', {}));
  for (const piece of pieces) res.write(anthropicText(piece));
  res.write(anthropicEvent('content_block_stop', { index: 0 }));
  res.write(
    anthropicEvent('message_delta', {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
  );
  res.end(anthropicEvent('message_stop', {}));
}
