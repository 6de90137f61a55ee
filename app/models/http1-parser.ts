// Reads one HTTP/1.x response from bytes in whatever pieces they arrive: the head (1xx heads are
// skipped), then the body by its framing (Content-Length, chunked, to the end of the connection, or
// none), decoded as UTF-8 text. No sockets here: http1-client.ts feeds it. Anything it cannot read
// throws Http1ProtocolError; nothing past the end of the body is accepted (no pipelining).
import { StringDecoder } from 'node:string_decoder';

/** The server's bytes are not an HTTP/1.x response this client can read. */
export class Http1ProtocolError extends Error {
  constructor(message: string) {
    super(`malformed HTTP response: ${message}`);
    this.name = 'Http1ProtocolError';
  }
}

const MAX_HEAD_BYTES = 64 * 1024;
const MAX_CHUNK_LINE = 1024;
const HEAD_END = Buffer.from('\r\n\r\n');

export interface ResponseHead {
  status: number;
  /** Names in lower case, in the order received. */
  headers: [string, string][];
  /** The connection may carry another request once this body has ended. */
  keepAlive: boolean;
}

/** Where a parsed response goes, in order: one head, text pieces, one end. */
export interface ResponseSink {
  head(head: ResponseHead): void;
  text(text: string): void;
  end(): void;
}

type BodyMode = 'length' | 'chunked' | 'close' | 'none';
type ChunkState = 'size' | 'data' | 'data-end' | 'trailers';

export class ResponseParser {
  headDone = false;
  complete = false;
  readonly #sink: ResponseSink;
  #head: Buffer = Buffer.alloc(0);
  #mode: BodyMode = 'none';
  #remaining = 0;
  #chunkState: ChunkState = 'size';
  #line = '';
  readonly #decoder = new StringDecoder('utf8');

  constructor(sink: ResponseSink) {
    this.#sink = sink;
  }

  /** The next bytes from the connection. */
  push(data: Buffer): void {
    if (!this.headDone) {
      const rest = this.#readHead(data);
      if (rest === null) return;
      data = rest;
    }
    this.#readBody(data);
  }

  /** The connection ended: true when that completes the response (a body read to the end). */
  endOfInput(): boolean {
    if (this.headDone && this.#mode === 'close' && !this.complete) this.#finish();
    return this.complete;
  }

  /** Collects the head; returns the bytes after it once it is complete, else null. */
  #readHead(data: Buffer): Buffer | null {
    this.#head = this.#head.length === 0 ? data : Buffer.concat([this.#head, data]);
    for (;;) {
      const end = this.#head.indexOf(HEAD_END);
      if ((end < 0 ? this.#head.length : end) > MAX_HEAD_BYTES)
        throw new Http1ProtocolError('head over 64 KB');
      if (end < 0) return null;
      const rest = this.#head.subarray(end + HEAD_END.length);
      const head = this.#parseHead(this.#head.toString('latin1', 0, end));
      this.#head = rest;
      if (head === null) continue; // 100 Continue, 103 Early Hints: the real head follows
      this.#head = Buffer.alloc(0);
      this.headDone = true;
      this.#sink.head(head);
      return rest;
    }
  }

  /** Parses a status line and headers; null for a 1xx head, which another head follows. */
  #parseHead(text: string): ResponseHead | null {
    const lines = text.split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0] ?? '');
    if (!status) throw new Http1ProtocolError(`status line ${JSON.stringify(lines[0])}`);
    const code = Number(status[2]);
    if (code >= 100 && code < 200) return null;
    const headers: [string, string][] = [];
    let length: string | undefined;
    let chunked = false;
    let connection = '';
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] ?? '';
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Http1ProtocolError(`header line ${JSON.stringify(line)}`);
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.push([name, value]);
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== value))
          throw new Http1ProtocolError(`content-length ${JSON.stringify(value)}`);
        length = value;
      } else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') connection = value.toLowerCase();
    }
    let keepAlive =
      status[1] === '1' ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
    if (code === 204 || code === 304) this.#mode = 'none';
    else if (chunked) this.#mode = 'chunked';
    else if (length !== undefined) {
      this.#mode = 'length';
      this.#remaining = Number(length);
    } else {
      this.#mode = 'close';
      keepAlive = false;
    }
    return { status: code, headers, keepAlive };
  }

  #readBody(data: Buffer): void {
    if (this.complete) {
      if (data.length > 0) throw new Http1ProtocolError('bytes after the end of the body');
      return;
    }
    switch (this.#mode) {
      case 'none':
        if (data.length > 0) throw new Http1ProtocolError('bytes after the end of the body');
        this.#finish();
        return;
      case 'close':
        this.#text(data);
        return;
      case 'length': {
        if (data.length > this.#remaining)
          throw new Http1ProtocolError('more bytes than its content-length');
        this.#remaining -= data.length;
        this.#text(data);
        if (this.#remaining === 0) this.#finish();
        return;
      }
      case 'chunked':
        this.#readChunked(data);
        return;
    }
  }

  #readChunked(data: Buffer): void {
    let at = 0;
    while (at < data.length && !this.complete) {
      switch (this.#chunkState) {
        case 'size':
        case 'trailers': {
          const newline = data.indexOf(10, at);
          const end = newline < 0 ? data.length : newline + 1;
          this.#line += data.toString('latin1', at, end);
          at = end;
          if (this.#line.length > MAX_CHUNK_LINE)
            throw new Http1ProtocolError('chunk line too long');
          if (newline < 0) break;
          const line = this.#line.replace(/\r?\n$/, '');
          this.#line = '';
          if (this.#chunkState === 'trailers') {
            if (line === '') this.#finish();
            break;
          }
          const size = /^([0-9a-fA-F]+)\s*(;.*)?$/.exec(line);
          if (!size?.[1]) throw new Http1ProtocolError(`chunk size ${JSON.stringify(line)}`);
          this.#remaining = parseInt(size[1], 16);
          this.#chunkState = this.#remaining === 0 ? 'trailers' : 'data';
          break;
        }
        case 'data': {
          const end = Math.min(data.length, at + this.#remaining);
          this.#text(data.subarray(at, end));
          this.#remaining -= end - at;
          at = end;
          if (this.#remaining === 0) this.#chunkState = 'data-end';
          break;
        }
        case 'data-end': {
          // The CRLF after a chunk's data, possibly split across packets.
          const byte = data[at++];
          if (byte === 13) break;
          if (byte !== 10) throw new Http1ProtocolError('chunk data not followed by CRLF');
          this.#chunkState = 'size';
          break;
        }
      }
    }
    if (at < data.length) throw new Http1ProtocolError('bytes after the end of the body');
  }

  #text(bytes: Buffer): void {
    const text = this.#decoder.write(bytes);
    if (text.length > 0) this.#sink.text(text);
  }

  #finish(): void {
    const tail = this.#decoder.end();
    if (tail.length > 0) this.#sink.text(tail);
    this.complete = true;
    this.#sink.end();
  }
}
