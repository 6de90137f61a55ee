// A lean streaming POST for OpenAI-compatible servers over undici: one keep-alive agent for the
// process (http: and https: alike), the server-sent events handed out as parsed JSON. It drives
// undici's `dispatch` with its own handler, so no Readable stream is built per response: body
// bytes go from the socket straight into a string queue. Measured in bench:rlm against undici's
// `request()` (a Readable body) and the hand-written HTTP/1.1 client this replaced (docs/DECISIONS.md):
// ~55 us of CPU per call more than the latter, within the bench's goals; `request()` missed them.
// Failures come out as the classes below, which sdk-failure.ts classifies like the SDK's own.
import { StringDecoder } from 'node:string_decoder';
import { Agent, errors, type Dispatcher } from 'undici';

/** The server answered with an error status, or sent an error event inside the stream. */
export class SseStatusError extends Error {
  readonly status: number | undefined;
  readonly headers: Headers | undefined;
  /** The parsed JSON body (or its text when it is not JSON). */
  readonly error: unknown;
  constructor(status: number | undefined, headers: Headers | undefined, body: unknown) {
    super(`${status === undefined ? '' : `${String(status)} `}${describeBody(body)}`);
    this.name = 'SseStatusError';
    this.status = status;
    this.headers = headers;
    this.error = body;
  }
}

/** The server could not be reached (refused, reset before a response, DNS). */
export class SseConnectionError extends Error {
  constructor(cause: unknown) {
    super('connection failed', { cause });
    this.name = 'SseConnectionError';
  }
}

/** Never raised: timeouts are the retry layer's (retry.ts aborts the attempt's signal). */
export class SseTimeoutError extends SseConnectionError {}

/** The attempt's signal fired. */
export class SseAbortError extends Error {
  constructor() {
    super('Request was aborted.');
    this.name = 'SseAbortError';
  }
}

export interface SsePost {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

// One keep-alive agent for the whole process, http: and https: alike (a pool per origin inside):
// every run builds its own provider, and 128 runs against one server share its open connections.
// - connections: null: no cap per origin, so 512 concurrent streams get 512 sockets and come back
//   to the same 512 (undici keeps every idle socket, there is no maxFreeSockets to trim them).
// - pipelining: 1: one request per connection at a time (HTTP/1.1 keep-alive, no pipelining).
// - keepAliveTimeout: how long an idle socket is kept when the server gives no `Keep-Alive:
//   timeout=N` hint; a hint wins (less 2 s). A server that closes first is seen while idle (its FIN)
//   and the socket dropped; one that closes just as a request goes out is retried once (`open`).
// - headersTimeout/bodyTimeout 0: timeouts are retry.ts's (it aborts the attempt's signal).
// - allowH2: false: HTTP/1.1 everywhere (undici would otherwise negotiate h2 with an https
//   server and multiplex up to 100 streams on one session, one congested TCP stream for all).
// Idle sockets are unref'd by undici, so they do not keep Node alive.
const sharedAgent = new Agent({
  connections: null,
  pipelining: 1,
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 600_000,
  headersTimeout: 0,
  bodyTimeout: 0,
  allowH2: false,
});

/** How long a stream that said [DONE] may take to end its body before its socket is closed. */
const DRAIN_MS = 1_000;

/** Streams from servers over the process's shared undici agent. */
export class SseClient {
  /** POSTs and yields each `data:` payload of the event stream, parsed, until `[DONE]` or the end. */
  async *stream(post: SsePost): AsyncGenerator {
    const response = await this.open(post);
    let finished = false;
    try {
      const status = response.status;
      if (status < 200 || status >= 300) {
        let text = '';
        for (let chunk; (chunk = await read(response, post.signal)) !== null;) text += chunk;
        finished = true;
        throw new SseStatusError(status, response.headers, parseBody(text));
      }
      let buffer = '';
      for (let chunk; (chunk = await read(response, post.signal)) !== null;) {
        buffer += chunk;
        let end: number;
        while ((end = eventEnd(buffer)) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end).replace(/^(\r?\n){2}/, '');
          const data = dataOf(event);
          if (data === undefined) continue;
          if (data === '[DONE]') {
            finished = true;
            return;
          }
          const parsed = parseBody(data);
          if (isErrorEvent(parsed)) throw new SseStatusError(undefined, undefined, parsed);
          yield parsed;
        }
      }
      finished = true;
      const data = dataOf(buffer);
      if (data !== undefined && data !== '[DONE]') yield parseBody(data);
    } finally {
      response.release(finished);
    }
  }

  private async open(post: SsePost): Promise<Exchange> {
    const url = new URL(post.url);
    try {
      post.signal.throwIfAborted();
      const options: Dispatcher.DispatchOptions = {
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: post.headers,
        body: post.body,
      };
      try {
        return await send(options, post.signal);
      } catch (error) {
        if (post.signal.aborted || !isStaleConnection(error)) throw error;
      }
      return await send(options, post.signal);
    } catch (error) {
      if (post.signal.aborted || error instanceof SseAbortError) throw new SseAbortError();
      throw new SseConnectionError(error);
    }
  }
}

/** Dispatches one request; resolves with its exchange once the response head has arrived. */
function send(options: Dispatcher.DispatchOptions, signal: AbortSignal): Promise<Exchange> {
  const exchange = new Exchange(signal);
  try {
    sharedAgent.dispatch(options, exchange);
  } catch (error) {
    exchange.onResponseError(null, error instanceof Error ? error : new Error(String(error)));
  }
  return exchange.head;
}

/**
 * A keep-alive socket that closed before any byte of its reply (the server's idle timeout met the
 * request on the wire): undici fails it with `other side closed` and does not resend a POST. A
 * socket that had read bytes before was a reused one; a new connection's failure is not retried.
 */
function isStaleConnection(error: unknown): boolean {
  return error instanceof errors.SocketError && (error.socket?.bytesRead ?? 0) > 0;
}

/** The next piece of body text, with an abort reported as SseAbortError. */
async function read(response: Exchange, signal: AbortSignal): Promise<string | null> {
  try {
    return await response.read();
  } catch (error) {
    if (signal.aborted) throw new SseAbortError();
    throw error;
  }
}

/**
 * One request's undici handler, and its response: the head as a promise, the body as text chunks
 * in order, `release` deciding the socket's fate. Invariant: undici gives a socket back to its pool only after a complete response;
 * every failure here aborts the request, which destroys its socket.
 */
class Exchange implements Dispatcher.DispatchHandler {
  readonly head: Promise<Exchange>;
  status = 0;
  /** True once the whole body was received. */
  complete = false;
  #rawHeaders: Record<string, string | string[] | undefined> = {};
  #headers: Headers | null = null;

  readonly #signal: AbortSignal;
  #controller: Dispatcher.DispatchController | null = null;
  #resolveHead!: (exchange: Exchange) => void;
  #rejectHead!: (error: unknown) => void;
  #headDone = false;
  readonly #decoder = new StringDecoder('utf8');
  #chunks: string[] = [];
  #error: Error | null = null;
  #waiter: { resolve: (text: string | null) => void; reject: (error: unknown) => void } | null =
    null;
  #released = false;
  #drainTimer: NodeJS.Timeout | null = null;

  constructor(signal: AbortSignal) {
    this.#signal = signal;
    this.head = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    signal.addEventListener('abort', this.#onAbort);
  }

  get headers(): Headers {
    if (!this.#headers) {
      this.#headers = new Headers();
      for (const [name, value] of Object.entries(this.#rawHeaders)) {
        if (typeof value === 'string') this.#headers.append(name, value);
        else if (Array.isArray(value)) for (const item of value) this.#headers.append(name, item);
      }
    }
    return this.#headers;
  }

  /** The next piece of body text; null once the body has ended. Rejects if it cannot end well. */
  read(): Promise<string | null> {
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) return Promise.resolve(chunk);
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.complete) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  /**
   * The consumer is done. `finished`: it read what it needed (a stream's [DONE]), so a body still
   * arriving (often just the chunked terminator, in a later packet) is drained for up to DRAIN_MS
   * and the socket kept; otherwise (error, abort, a consumer that stopped early) it is closed.
   */
  release(finished: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#chunks = [];
    if (this.complete || this.#error !== null) return;
    if (!finished) {
      this.#fail(new Error('the response was left before its end'));
      return;
    }
    this.#drainTimer = setTimeout(() => {
      this.#fail(new Error('the response did not end after its last event'));
    }, DRAIN_MS);
    this.#drainTimer.unref();
  }

  // undici's handler callbacks.

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    // Aborted while it waited for a connection: it must not go out.
    if (this.#error !== null) controller.abort(this.#error);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200 || this.#error !== null) return; // 1xx heads come before the real one
    this.status = statusCode;
    this.#rawHeaders = headers;
    this.#headDone = true;
    this.#resolveHead(this);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#released || this.#error !== null) return; // draining after [DONE]: discarded
    const text = this.#decoder.write(chunk);
    if (text !== '') this.#push(text);
  }

  onResponseEnd(): void {
    if (this.complete || this.#error !== null) return;
    const rest = this.#decoder.end();
    if (rest !== '' && !this.#released) this.#push(rest);
    this.complete = true;
    this.#detach();
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.resolve(null);
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, error: Error): void {
    this.#fail(error);
  }

  readonly #onAbort = () => {
    this.#fail(new SseAbortError());
  };

  #push(text: string): void {
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = null;
      waiter.resolve(text);
    } else this.#chunks.push(text);
  }

  #fail(error: Error): void {
    if (this.complete || this.#error !== null) return;
    this.#error = error;
    this.#detach();
    // Destroys the socket of a request in flight; a no-op when undici itself reported the failure.
    this.#controller?.abort(error);
    if (!this.#headDone) this.#rejectHead(error);
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }

  #detach(): void {
    if (this.#drainTimer) clearTimeout(this.#drainTimer);
    this.#signal.removeEventListener('abort', this.#onAbort);
  }
}

function eventEnd(buffer: string): number {
  const lf = buffer.indexOf('\n\n');
  const crlf = buffer.indexOf('\r\n\r\n');
  if (lf < 0) return crlf;
  if (crlf < 0) return lf;
  return Math.min(lf, crlf);
}

/** The joined `data:` lines of one event, or undefined when it has none (comments, pings). */
function dataOf(event: string): string | undefined {
  let data: string | undefined;
  for (const line of event.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue;
    const value = line.slice(line.startsWith('data: ') ? 6 : 5);
    data = data === undefined ? value : `${data}\n${value}`;
  }
  return data;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function isErrorEvent(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'error' in value && !('choices' in value);
}

function describeBody(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 200);
  return JSON.stringify(body).slice(0, 200);
}
