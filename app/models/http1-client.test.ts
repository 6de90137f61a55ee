import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { Http1Pool, Http1ProtocolError, type Http1Response } from './http1-client.ts';

// A raw TCP server, so each test decides the exact bytes of the reply and how they are split.
// `reply` gets the socket and the request text (head and body) once a whole request has arrived.
let server: Server | null = null;
let pool: Http1Pool | null = null;
let connections = 0;
const requests: string[] = [];
const open = new Set<Socket>();

async function serve(reply: (socket: Socket, request: string) => void): Promise<URL> {
  connections = 0;
  requests.length = 0;
  server = createServer((socket) => {
    connections++;
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    let pending = '';
    socket.on('data', (data) => {
      pending += data.toString('latin1');
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.slice(0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        const request = pending.slice(0, end + 4 + length);
        pending = pending.slice(request.length);
        requests.push(request);
        reply(socket, request);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  return new URL(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}/v1/chat?x=1`);
}

afterEach(async () => {
  pool?.close();
  pool = null;
  const current = server;
  server = null;
  for (const socket of open) socket.destroy();
  if (current) await new Promise((resolve) => current.close(resolve));
});

const signal = () => new AbortController().signal;

async function post(url: URL, body = '{"q":1}', abort = signal()): Promise<Http1Response> {
  pool ??= new Http1Pool();
  return pool.request(url, { 'content-type': 'application/json' }, body, abort);
}

async function text(response: Http1Response): Promise<string> {
  let all = '';
  for (let chunk; (chunk = await response.read()) !== null;) all += chunk;
  return all;
}

/** Writes each piece after a pause, so the client reads them as separate packets. */
async function trickle(socket: Socket, pieces: (string | Buffer)[]): Promise<void> {
  for (const piece of pieces) {
    socket.write(piece);
    await sleep(2);
  }
}

const ok = (body: string, extra = '') =>
  `HTTP/1.1 200 OK\r\ncontent-length: ${String(Buffer.byteLength(body))}\r\n${extra}\r\n${body}`;

describe('Http1Pool', () => {
  it('sends one well-formed request: path and query, host, headers, content-length, body', async () => {
    const url = await serve((socket) => socket.write(ok('done')));
    const response = await post(url, '{"é":1}');
    expect(response.status).toBe(200);
    expect(await text(response)).toBe('done');
    const [head, body] = (requests[0] ?? '').split('\r\n\r\n');
    expect(head?.split('\r\n')).toEqual([
      'POST /v1/chat?x=1 HTTP/1.1',
      `host: ${url.host}`,
      'content-type: application/json',
      'content-length: 8',
      'connection: keep-alive',
    ]);
    expect(Buffer.from(body ?? '', 'latin1').toString('utf8')).toBe('{"é":1}');
  });

  it('reads a content-length body split anywhere, a UTF-8 character across two packets included', async () => {
    const body = Buffer.from('data: {"text":"héllo ✓"}\n\n', 'utf8');
    const cut = body.indexOf(0xa9); // the second byte of é
    const url = await serve((socket) => {
      const whole = Buffer.concat([
        Buffer.from(
          `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncontent-length: ${String(body.length)}\r\n\r\n`,
        ),
        body,
      ]);
      const headEnd = whole.length - body.length;
      void trickle(socket, [
        whole.subarray(0, 10),
        whole.subarray(10, headEnd - 1),
        whole.subarray(headEnd - 1, headEnd + cut),
        whole.subarray(headEnd + cut),
      ]);
    });
    const response = await post(url);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await text(response)).toBe('data: {"text":"héllo ✓"}\n\n');
    expect(response.complete).toBe(true);
  });

  it('reads a chunked body sent a byte at a time, with chunk extensions and trailers', async () => {
    const wire =
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n' +
      '6;name=value\r\ndata: \r\n' +
      '9\r\n{"n":1}\n\n\r\n' +
      '0\r\nx-trailer: yes\r\n\r\n';
    const url = await serve((socket) => void trickle(socket, wire.split('')));
    const response = await post(url);
    expect(await text(response)).toBe('data: {"n":1}\n\n');
  });

  it('skips a 100 Continue head and reads the response after it', async () => {
    const url = await serve((socket) => socket.write(`HTTP/1.1 100 Continue\r\n\r\n${ok('real')}`));
    const response = await post(url);
    expect(response.status).toBe(200);
    expect(await text(response)).toBe('real');
  });

  it('reuses one keep-alive connection for requests in a row, and a new one after connection: close', async () => {
    let count = 0;
    const url = await serve((socket) =>
      socket.write(ok(String(++count), count === 2 ? 'connection: close\r\n' : '')),
    );
    expect(await text(await post(url))).toBe('1');
    expect(await text(await post(url))).toBe('2');
    expect(await text(await post(url))).toBe('3');
    expect(connections).toBe(2);
  });

  it('reads a body without length to the end of the connection and does not reuse it', async () => {
    const url = await serve((socket) => {
      socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it');
    });
    expect(await text(await post(url))).toBe('all of it');
    expect(await text(await post(url))).toBe('all of it');
    expect(connections).toBe(2);
  });

  it('reads a 204 without a body and keeps the connection', async () => {
    const url = await serve((socket) => socket.write('HTTP/1.1 204 No Content\r\n\r\n'));
    const first = await post(url);
    expect(first.status).toBe(204);
    expect(await text(first)).toBe('');
    expect(await text(await post(url))).toBe('');
    expect(connections).toBe(1);
  });

  it('sends again on a new connection when the server closed the idle one it reused', async () => {
    // The server answers once per connection, then closes it without saying so (its keep-alive
    // timeout): the next request finds the pooled socket dead before any reply byte.
    const url = await serve((socket) => {
      socket.write(ok('fine'));
      setTimeout(() => socket.destroy(), 5);
    });
    expect(await text(await post(url))).toBe('fine');
    await sleep(30);
    expect(await text(await post(url))).toBe('fine');
    expect(connections).toBe(2);
  });

  it('closes idle connections after idleMs', async () => {
    let closed = 0;
    const url = await serve((socket) => {
      socket.on('close', () => closed++);
      socket.write(ok('x'));
    });
    pool = new Http1Pool({ idleMs: 30 });
    expect(await text(await post(url))).toBe('x');
    await sleep(150);
    expect(closed).toBe(1);
  });

  it('rejects a reply that is not HTTP with Http1ProtocolError', async () => {
    const url = await serve((socket) => socket.write('SSH-2.0-OpenSSH_9.6\r\n\r\n'));
    await expect(post(url)).rejects.toThrow(Http1ProtocolError);
    await expect(post(url)).rejects.toThrow(/malformed HTTP response: status line "SSH-2.0/);
  });

  it('rejects a head over 64 KB and a bad chunk size', async () => {
    const url = await serve((socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(70_000)}\r\n\r\n`),
    );
    await expect(post(url)).rejects.toThrow(/head over 64 KB/);
    server?.close();
    const chunked = await serve((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'),
    );
    const response = await post(chunked);
    await expect(text(response)).rejects.toThrow(/chunk size "zz"/);
  });

  it('fails a body cut short by the server with ECONNRESET', async () => {
    const url = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npart');
      setTimeout(() => socket.destroy(), 10);
    });
    const response = await post(url);
    await expect(text(response)).rejects.toMatchObject({
      code: 'ECONNRESET',
      message: 'the response ended early',
    });
  });

  it('aborts: before sending, while waiting for the head and in the middle of the body', async () => {
    const url = await serve((socket, request) => {
      if (request.includes('"head"')) return; // never answers
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npart');
    });
    await expect(post(url, '{}', AbortSignal.abort(new Error('early')))).rejects.toThrow('early');
    const waiting = new AbortController();
    const head = post(url, '{"head":1}', waiting.signal);
    setTimeout(() => {
      waiting.abort(new Error('stop waiting'));
    }, 20);
    await expect(head).rejects.toThrow('stop waiting');
    const reading = new AbortController();
    const response = await post(url, '{}', reading.signal);
    expect(await response.read()).toBe('part');
    const next = response.read();
    reading.abort(new Error('stop reading'));
    await expect(next).rejects.toThrow('stop reading');
  });

  it('closes a connection whose consumer left before the end, and drains one that said it was finished', async () => {
    const url = await serve((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\nfirst');
      setTimeout(() => socket.write('end'), 30);
    });
    const left = await post(url);
    expect(await left.read()).toBe('first');
    left.release(false);
    const finished = await post(url);
    expect(await finished.read()).toBe('first');
    finished.release(true);
    await sleep(60); // 'end' arrives and the connection goes back to the pool
    expect(await text(await post(url))).toBe('firstend');
    expect(connections).toBe(2);
  });

  it('refuses header names and values that would break the request', async () => {
    const url = await serve((socket) => socket.write(ok('x')));
    pool = new Http1Pool();
    await expect(
      pool.request(url, { 'x-key': 'a\r\nx-injected: 1' }, '', signal()),
    ).rejects.toThrow(TypeError);
    await expect(pool.request(url, { 'bad name': 'a' }, '', signal())).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it('rejects with the connection error when nothing listens', async () => {
    const url = await serve(() => undefined);
    await new Promise((resolve) => server?.close(resolve));
    server = null;
    await expect(post(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
