import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { drawIcon, encodePng } from './make-icon.ts';

function readChunks(png: Buffer) {
  const chunks: { type: string; data: Buffer }[] = [];
  let at = 8;
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('ascii', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    expect(png.readUInt32BE(at + 8 + length)).toBe(crc32(png.subarray(at + 4, at + 8 + length)));
    chunks.push({ type, data });
    at += 12 + length;
  }
  return chunks;
}

describe('encodePng', () => {
  it('writes a valid PNG whose pixels read back', () => {
    const rgba = new Uint8Array([255, 0, 0, 255, 0, 0, 255, 128]);
    const png = encodePng(2, 1, rgba);
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    const chunks = readChunks(png);
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'IEND']);
    const header = chunks[0]?.data;
    expect([header?.readUInt32BE(0), header?.readUInt32BE(4), header?.[8], header?.[9]]).toEqual([
      2, 1, 8, 6,
    ]);
    expect([...inflateSync(chunks[1]?.data ?? Buffer.alloc(0))]).toEqual([0, ...rgba]);
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => encodePng(2, 2, new Uint8Array(4))).toThrow(RangeError);
  });
});

describe('drawIcon', () => {
  it('is transparent in the corners, white on the root agent, tinted elsewhere', () => {
    const size = 64;
    const pixels = drawIcon(size);
    const at = (x: number, y: number) => [
      ...pixels.subarray((y * size + x) * 4, (y * size + x) * 4 + 4),
    ];
    expect(at(0, 0)[3]).toBe(0);
    expect(at(32, 18)).toEqual([255, 255, 255, 255]);
    expect(at(32, 50)[3]).toBe(255);
    expect(at(32, 50).slice(0, 3)).not.toEqual([255, 255, 255]);
  });
});
