// A small HTTP/1.1 client over node:net for plain-http model servers (vLLM, SGLang, Ollama, LM
// Studio on this machine or the lab's network): one request per connection at a time, keep-alive
// reuse, Content-Length, chunked and read-until-close bodies. Hand-written because measurement says
// so: with 384 streams in flight node:http's client costs ~65-120 us of CPU per call and undici ~15%
// less, this one ~30 us, and the engine's one thread spends its time on little else between turns.
// HTTPS stays on node:https (sse-http.ts); the bytes are read by http1-parser.ts. Invariant: a
// socket goes back to the pool only after a complete response on a keep-alive connection; anything
// unexpected closes it.
import { connect, type Socket } from 'node:net';
import { ResponseParser, type ResponseHead } from './http1-parser.ts';

export { Http1ProtocolError } from './http1-parser.ts';

/** A reused keep-alive connection closed before any byte of the response came back. */
class StaleConnectionError extends Error {}

export interface Http1PoolOptions {
  /** Idle connections kept per host (default 1,024: a burst of 384 streams reuses all of them). */
  maxIdlePerHost?: number;
  /** An idle connection is closed after this long (default 4 s, below common 5 s server limits). */
  idleMs?: number;
}

/** One response: its head at once, its body as text chunks in order. */
export interface Http1Response {
  readonly status: number;
  readonly headers: Headers;
  /** The next piece of body text; null once the body has ended. Rejects if it cannot end well. */
  read(): Promise<string | null>;
  /** True once the whole body was received. */
  readonly complete: boolean;
  /**
   * The consumer is done. `finished`: it read what it needed (a stream's [DONE]), so a body that
   * is still arriving is drained and the connection kept; otherwise the connection is closed.
   */
  release(finished: boolean): void;
}

export class Http1Pool {
  readonly #idle = new Map<string, Socket[]>();
  /** The listener that closes an idle socket, removed when the socket is taken again. */
  readonly #drops = new Map<Socket, () => void>();
  readonly #maxIdle: number;
  readonly #idleMs: number;

  constructor(options: Http1PoolOptions = {}) {
    this.#maxIdle = options.maxIdlePerHost ?? 1024;
    this.#idleMs = options.idleMs ?? 4000;
  }

  /** Sends one request; resolves with the response once its head has arrived. */
  async request(
    url: URL,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<Http1Response> {
    if (url.protocol !== 'http:') throw new TypeError(`not an http: URL: ${url.href}`);
    const message = requestText(url, headers, body);
    const key = `${url.hostname}:${url.port || '80'}`;
    signal.throwIfAborted();
    const idle = this.#take(key);
    if (idle) {
      try {
        return await new Exchange(this, key, idle, true, message, signal).response;
      } catch (error) {
        if (!(error instanceof StaleConnectionError)) throw error;
      }
    }
    signal.throwIfAborted();
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket = connect({ host, port: Number(url.port || 80) });
    socket.setNoDelay(true);
    return new Exchange(this, key, socket, false, message, signal).response;
  }

  /** Closes every idle connection (in-flight ones end with their exchange). */
  close(): void {
    for (const sockets of this.#idle.values()) for (const socket of sockets) socket.destroy();
    this.#idle.clear();
    this.#drops.clear();
  }

  #take(key: string): Socket | undefined {
    const sockets = this.#idle.get(key);
    let socket: Socket | undefined;
    while ((socket = sockets?.pop())) {
      const drop = this.#drops.get(socket);
      this.#drops.delete(socket);
      if (drop) {
        socket.off('data', drop);
        socket.off('end', drop);
        socket.off('error', drop);
        socket.off('timeout', drop);
      }
      if (socket.destroyed) continue;
      socket.setTimeout(0);
      socket.ref();
      return socket;
    }
    return undefined;
  }

  /** Called by an exchange whose response was complete on a keep-alive connection. */
  keep(key: string, socket: Socket): void {
    let sockets = this.#idle.get(key);
    if (!sockets) this.#idle.set(key, (sockets = []));
    if (sockets.length >= this.#maxIdle) {
      socket.destroy();
      return;
    }
    const drop = () => {
      socket.destroy();
      this.#drops.delete(socket);
      const at = sockets.indexOf(socket);
      if (at >= 0) sockets.splice(at, 1);
    };
    this.#drops.set(socket, drop);
    // Idle: any byte, end or error from the server means the connection is no longer usable.
    socket.on('data', drop);
    socket.on('end', drop);
    socket.on('error', drop);
    socket.on('timeout', drop);
    socket.setTimeout(this.#idleMs);
    socket.unref();
    sockets.push(socket);
  }
}

/** One request/response on one socket. */
class Exchange implements Http1Response {
  readonly response: Promise<Http1Response>;
  status = 0;
  #rawHeaders: [string, string][] = [];
  #headers: Headers | null = null;
  complete = false;

  readonly #pool: Http1Pool;
  readonly #key: string;
  readonly #socket: Socket;
  readonly #reused: boolean;
  readonly #signal: AbortSignal;
  #resolveHead!: (response: Http1Response) => void;
  #rejectHead!: (error: unknown) => void;
  #gotBytes = false;
  #keepAlive = false;
  readonly #parser = new ResponseParser({
    head: (head) => {
      this.#onHead(head);
    },
    text: (text) => {
      this.#push(text);
    },
    end: () => {
      this.#finishBody();
    },
  });
  #chunks: string[] = [];
  #error: Error | null = null;
  #waiter: { resolve: (text: string | null) => void; reject: (error: unknown) => void } | null =
    null;
  #released = false;
  #drainTimer: NodeJS.Timeout | null = null;

  constructor(
    pool: Http1Pool,
    key: string,
    socket: Socket,
    reused: boolean,
    message: string,
    signal: AbortSignal,
  ) {
    this.#pool = pool;
    this.#key = key;
    this.#socket = socket;
    this.#reused = reused;
    this.#signal = signal;
    this.response = new Promise((resolve, reject) => {
      this.#resolveHead = resolve;
      this.#rejectHead = reject;
    });
    socket.on('data', this.#onData);
    socket.on('end', this.#onEnd);
    socket.on('error', this.#onError);
    socket.on('close', this.#onClose);
    signal.addEventListener('abort', this.#onAbort);
    socket.write(message);
  }

  get headers(): Headers {
    if (!this.#headers) {
      this.#headers = new Headers();
      for (const [name, value] of this.#rawHeaders) this.#headers.append(name, value);
    }
    return this.#headers;
  }

  read(): Promise<string | null> {
    const chunk = this.#chunks.shift();
    if (chunk !== undefined) return Promise.resolve(chunk);
    if (this.#error !== null) return Promise.reject(this.#error);
    if (this.complete) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.#waiter = { resolve, reject };
    });
  }

  release(finished: boolean): void {
    if (this.#released) return;
    this.#released = true;
    this.#chunks = [];
    if (this.complete || this.#error !== null) return;
    if (!finished) {
      this.#fail(new Error('the response was left before its end'));
      return;
    }
    // What is left is usually the chunked terminator in a later packet: wait a little for it.
    this.#drainTimer = setTimeout(() => {
      this.#fail(new Error('the response did not end after its last event'));
    }, 1000);
    this.#drainTimer.unref();
  }

  readonly #onData = (data: Buffer) => {
    this.#gotBytes = true;
    try {
      this.#parser.push(data);
    } catch (error) {
      this.#fail(error);
    }
  };

  readonly #onEnd = () => {
    if (!this.#parser.endOfInput()) this.#fail(this.#earlyEnd());
  };

  readonly #onError = (error: Error) => {
    this.#fail(this.#reused && !this.#gotBytes ? new StaleConnectionError(error.message) : error);
  };

  readonly #onClose = () => {
    if (!this.complete) this.#fail(this.#earlyEnd());
  };

  readonly #onAbort = () => {
    this.#fail(abortError(this.#signal));
  };

  #earlyEnd(): Error {
    if (this.#reused && !this.#gotBytes) return new StaleConnectionError('closed before a reply');
    return Object.assign(
      new Error(
        this.#parser.headDone ? 'the response ended early' : 'the connection closed before a reply',
      ),
      { code: 'ECONNRESET' },
    );
  }

  #onHead(head: ResponseHead): void {
    this.status = head.status;
    this.#rawHeaders = head.headers;
    this.#keepAlive = head.keepAlive;
    this.#resolveHead(this);
  }

  #push(text: string): void {
    if (this.#released) return;
    const waiter = this.#waiter;
    if (waiter) {
      this.#waiter = null;
      waiter.resolve(text);
    } else this.#chunks.push(text);
  }

  #finishBody(): void {
    if (this.complete || this.#error !== null) return;
    this.complete = true;
    this.#detach();
    if (this.#keepAlive) this.#pool.keep(this.#key, this.#socket);
    else this.#socket.destroy();
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.resolve(null);
  }

  #fail(failure: unknown): void {
    if (this.complete || this.#error !== null) return;
    const error = failure instanceof Error ? failure : new Error(String(failure));
    this.#error = error;
    this.#detach();
    this.#socket.destroy();
    if (!this.#parser.headDone) this.#rejectHead(error);
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }

  #detach(): void {
    if (this.#drainTimer) clearTimeout(this.#drainTimer);
    this.#signal.removeEventListener('abort', this.#onAbort);
    this.#socket.off('data', this.#onData);
    this.#socket.off('end', this.#onEnd);
    this.#socket.off('error', this.#onError);
    this.#socket.off('close', this.#onClose);
    // A later error on a socket no exchange owns must not become an uncaught exception.
    if (!this.complete || !this.#keepAlive) this.#socket.on('error', () => undefined);
  }
}

function requestText(url: URL, headers: Record<string, string>, body: string): string {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || /[\r\n\0]/.test(value))
      throw new TypeError(`invalid HTTP header ${JSON.stringify(name)}`);
    const lower = name.toLowerCase();
    if (lower === 'host' || lower === 'content-length' || lower === 'connection') continue;
    head += `${name}: ${value}\r\n`;
  }
  return `${head}content-length: ${String(Buffer.byteLength(body))}\r\nconnection: keep-alive\r\n\r\n${body}`;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('aborted'), { name: 'AbortError' });
}
