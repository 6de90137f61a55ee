import { describe, expect, it } from 'vitest';
import { Http1ProtocolError, ResponseParser, type ResponseHead } from './http1-parser.ts';

/** Feeds `pieces` and records what the parser reports. */
function parse(pieces: Buffer[], endOfInput = false) {
  const seen = { heads: [] as ResponseHead[], text: '', ends: 0, complete: false };
  const parser = new ResponseParser({
    head: (head) => seen.heads.push(head),
    text: (text) => (seen.text += text),
    end: () => seen.ends++,
  });
  for (const piece of pieces) parser.push(piece);
  seen.complete = endOfInput ? parser.endOfInput() : parser.complete;
  return seen;
}

/** The response cut at every position into two pieces, and into single bytes. */
function splits(wire: Buffer): Buffer[][] {
  const all = [[wire], Array.from(wire, (byte) => Buffer.from([byte]))];
  for (let at = 1; at < wire.length; at++) all.push([wire.subarray(0, at), wire.subarray(at)]);
  return all;
}

describe('ResponseParser', () => {
  it('reads a chunked body the same wherever the bytes are cut, a UTF-8 character across chunks included', () => {
    // '✓' (3 bytes) is split by the chunk framing itself: 'o ' plus its first byte, then the rest.
    const wire = Buffer.concat([
      Buffer.from(
        'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhéll\r\n3\r\n',
        'utf8',
      ),
      Buffer.from('o \xe2', 'latin1'),
      Buffer.from('\r\n2\r\n\x9c\x93\r\n0\r\nx-trailer: yes\r\n\r\n', 'latin1'),
    ]);
    for (const pieces of splits(wire)) {
      const seen = parse(pieces);
      expect(seen.text).toBe('héllo ✓');
      expect(seen.ends).toBe(1);
      expect(seen.complete).toBe(true);
      expect(seen.heads).toEqual([
        {
          status: 200,
          headers: [
            ['content-type', 'text/event-stream'],
            ['transfer-encoding', 'chunked'],
          ],
          keepAlive: true,
        },
      ]);
    }
  });

  it('reads a Content-Length body wherever it is cut, and skips 1xx heads', () => {
    const wire = Buffer.from(
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 9\r\nconnection: close\r\n\r\ndata: é\n',
      'utf8',
    );
    for (const pieces of splits(wire)) {
      const seen = parse(pieces);
      expect(seen.heads.map((head) => [head.status, head.keepAlive])).toEqual([[201, false]]);
      expect(seen.text).toBe('data: é\n');
      expect(seen.ends).toBe(1);
    }
  });

  it('reads a body without framing to the end of the input; HTTP/1.0 keeps alive only when asked', () => {
    const seen = parse(
      [Buffer.from('HTTP/1.0 200 OK\r\n\r\npart one, '), Buffer.from('two')],
      true,
    );
    expect(seen).toMatchObject({ text: 'part one, two', ends: 1, complete: true });
    expect(seen.heads[0]?.keepAlive).toBe(false);
    const kept = parse([
      Buffer.from('HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n'),
    ]);
    expect(kept).toMatchObject({ ends: 1, complete: true });
    expect(kept.heads[0]?.keepAlive).toBe(true);
  });

  it('does not end a framed body at the end of the input', () => {
    const seen = parse([Buffer.from('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort')], true);
    expect(seen).toMatchObject({ text: 'short', ends: 0, complete: false });
  });

  it.each([
    ['a status line that is not HTTP', 'ICY 200 OK\r\n\r\n', /status line "ICY 200 OK"/],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nbroken\r\n\r\n', /header line "broken"/],
    [
      'two different content lengths',
      'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\n',
      /content-length "2"/,
    ],
    [
      'a negative content length',
      'HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n',
      /content-length/,
    ],
    [
      'more body than its length',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nabc',
      /more bytes than its content-length/,
    ],
    [
      'bytes after a chunked body',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\nHTTP/1.1',
      /bytes after the end of the body/,
    ],
    [
      'chunk data without its CRLF',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab',
      /chunk data not followed by CRLF/,
    ],
    [
      'a chunk size line over 1 KB',
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n${'1'.repeat(2000)}`,
      /chunk line too long/,
    ],
  ])('refuses %s', (_name, wire, message) => {
    expect(() => parse([Buffer.from(wire)])).toThrow(Http1ProtocolError);
    expect(() => parse([Buffer.from(wire)])).toThrow(message);
  });
});
