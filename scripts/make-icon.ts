// Draws the app icon (a tree of agents on a gradient tile) and writes assets/icon.png, 512x512.
// Node built-ins only: a minimal PNG encoder (RGBA, 8-bit, no interlace) over zlib.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** Encodes straight (non-premultiplied) RGBA pixels, row by row, as a PNG file. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Buffer {
  if (rgba.length !== width * height * 4) {
    throw new RangeError(`expected ${width * height * 4} bytes of RGBA, got ${rgba.length}`);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit depth, RGBA, deflate, adaptive filtering, no interlace
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    // Filter type 0 (None) per row: the tile is smooth enough that deflate alone does well.
    rgba.subarray(y * width * 4, (y + 1) * width * 4).forEach((byte, i) => {
      rows[y * (width * 4 + 1) + 1 + i] = byte;
    });
  }
  return Buffer.concat([
    pngSignature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', new Uint8Array(0)),
  ]);
}

type Rgb = readonly [number, number, number];

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [
  a[0] + (b[0] - a[0]) * t,
  a[1] + (b[1] - a[1]) * t,
  a[2] + (b[2] - a[2]) * t,
];

function roundedBoxDistance(x: number, y: number, half: number, radius: number): number {
  const qx = Math.abs(x) - half + radius;
  const qy = Math.abs(y) - half + radius;
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}

function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number) {
  const t = clamp01(
    ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2),
  );
  return Math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay));
}

// The tree, on a 512 grid: a root agent, three children, and one grandchild.
const nodes = [
  { x: 256, y: 142, r: 46 },
  { x: 140, y: 318, r: 34 },
  { x: 256, y: 318, r: 34 },
  { x: 372, y: 318, r: 34 },
  { x: 372, y: 422, r: 26 },
] as const;
const edges = [
  [0, 1],
  [0, 2],
  [0, 3],
  [3, 4],
] as const;

/** Renders the icon at `size` pixels square, antialiased by signed distances. */
export function drawIcon(size = 512): Uint8Array {
  const pixels = new Uint8Array(size * size * 4);
  const scale = size / 512;
  const top: Rgb = [67, 56, 202];
  const bottom: Rgb = [13, 148, 136];
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      const x = (px + 0.5) / scale;
      const y = (py + 0.5) / scale;
      const tile = clamp01(0.5 - roundedBoxDistance(x - 256, y - 256, 240, 100) * scale);
      let ink = Infinity;
      for (const [a, b] of edges) {
        const from = nodes[a];
        const to = nodes[b];
        ink = Math.min(ink, segmentDistance(x, y, from.x, from.y, to.x, to.y) - 9);
      }
      for (const node of nodes) ink = Math.min(ink, Math.hypot(x - node.x, y - node.y) - node.r);
      const white = clamp01(0.5 - ink * scale);
      const color = mix(mix(top, bottom, clamp01((x + y) / 1024)), [255, 255, 255], white);
      const offset = (py * size + px) * 4;
      pixels[offset] = Math.round(color[0]);
      pixels[offset + 1] = Math.round(color[1]);
      pixels[offset + 2] = Math.round(color[2]);
      pixels[offset + 3] = Math.round(tile * 255);
    }
  }
  return pixels;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = join(fileURLToPath(new URL('..', import.meta.url)), 'assets', 'icon.png');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, encodePng(512, 512, drawIcon(512)));
  console.log(`wrote ${out}`);
}
