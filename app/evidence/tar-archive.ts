// Reads files out of a .tar or .tar.gz held in memory (ustar and GNU long names), enough for
// the QASPER release tarball; no extraction to disk.
import { gunzipSync } from 'node:zlib';

export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
  constructor(path: string, reason: string) {
    super(`'${path}' is not a readable tar archive (${reason}); pass the .json file instead`);
  }
}

function field(block: Uint8Array, start: number, length: number): string {
  const bytes = block.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end >= 0 ? bytes.subarray(0, end) : bytes).toString('utf8');
}

/** Every regular file in the archive: its path and bytes (views into the decompressed buffer). */
export function readTar(path: string, data: Uint8Array): { name: string; data: Uint8Array }[] {
  let bytes = data;
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      bytes = gunzipSync(bytes);
    } catch (error) {
      throw new TarFormatError(path, error instanceof Error ? error.message : String(error));
    }
  }
  const files: { name: string; data: Uint8Array }[] = [];
  let offset = 0;
  let longName: string | null = null;
  while (offset + 512 <= bytes.length) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isFinite(size)) throw new TarFormatError(path, `bad size at byte ${offset}`);
    const type = String.fromCharCode(header[156] ?? 0);
    const prefix = field(header, 345, 155);
    const name =
      longName ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    const body = bytes.subarray(offset + 512, offset + 512 + size);
    if (body.length < size) throw new TarFormatError(path, `'${name}' is cut short`);
    longName = null;
    if (type === 'L') longName = field(body, 0, body.length);
    else if (type === '0' || type === '\0') files.push({ name, data: body });
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}
