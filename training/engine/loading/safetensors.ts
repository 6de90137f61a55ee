// The safetensors format: an 8-byte little-endian header length, a JSON header naming each tensor's
// dtype, shape and byte range, then the data. Reads F32, F16 and BF16 into float32; writes F32.
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { CheckpointFormatError, UnsupportedDtypeError } from '../errors.ts';

export interface TensorInfo {
  dtype: string;
  shape: number[];
  data_offsets: [number, number];
}

export interface SafetensorsFile {
  path: string;
  tensors: Map<string, TensorInfo>;
  metadata: Record<string, string>;
  /** Byte offset of the data section. */
  dataStart: number;
}

const BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2 };

export function readSafetensorsHeader(path: string): SafetensorsFile {
  const fd = openSync(path, 'r');
  try {
    const lengthBytes = Buffer.alloc(8);
    if (readSync(fd, lengthBytes, 0, 8, 0) !== 8) {
      throw new CheckpointFormatError(path, 'shorter than a safetensors header');
    }
    const length = Number(lengthBytes.readBigUInt64LE(0));
    if (!(length > 1 && length < 100_000_000)) {
      throw new CheckpointFormatError(path, `header length ${length} is not plausible`);
    }
    const header = Buffer.alloc(length);
    readSync(fd, header, 0, length, 8);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(header.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new CheckpointFormatError(path, 'the safetensors header is not JSON');
    }
    const tensors = new Map<string, TensorInfo>();
    let metadata: Record<string, string> = {};
    for (const [name, value] of Object.entries(parsed)) {
      if (name === '__metadata__') metadata = value as Record<string, string>;
      else tensors.set(name, value as TensorInfo);
    }
    return { path, tensors, metadata, dataStart: 8 + length };
  } finally {
    closeSync(fd);
  }
}

/** One tensor as float32, converted from its stored dtype. */
export function readTensor(file: SafetensorsFile, name: string): Float32Array {
  const { raw, info, count } = readRaw(file, name);
  return toFloat32(raw, info.dtype, count);
}

/**
 * One tensor into memory the caller gives: a Uint16Array takes a BF16 tensor's bits as stored, a
 * Float32Array takes any dtype as float32. Stored bytes go straight into the target when they are
 * already its format, so a large tensor is not held twice.
 */
export function readTensorInto(
  file: SafetensorsFile,
  name: string,
  target: Float32Array | Uint16Array,
): void {
  const info = tensorInfo(file, name);
  const direct =
    (target instanceof Uint16Array && info.dtype === 'BF16') ||
    (target instanceof Float32Array && info.dtype === 'F32');
  if (direct) {
    readBytes(file, info, Buffer.from(target.buffer, target.byteOffset, target.byteLength));
    return;
  }
  if (target instanceof Uint16Array) {
    throw new UnsupportedDtypeError(name, `${info.dtype} (bf16 memory takes BF16 only)`);
  }
  const { raw, count } = readRaw(file, name);
  target.set(toFloat32(raw, info.dtype, count));
}

function tensorInfo(file: SafetensorsFile, name: string): TensorInfo {
  const info = file.tensors.get(name);
  if (!info) throw new CheckpointFormatError(file.path, `no tensor '${name}'`);
  const width = BYTES[info.dtype];
  if (width === undefined) throw new UnsupportedDtypeError(name, info.dtype);
  const [begin, end] = info.data_offsets;
  const count = info.shape.reduce((a, b) => a * b, 1);
  if (end - begin !== count * width) {
    throw new CheckpointFormatError(
      file.path,
      `tensor '${name}' has ${end - begin} bytes for ${count} values`,
    );
  }
  return info;
}

function readBytes(file: SafetensorsFile, info: TensorInfo, into: Buffer): void {
  const fd = openSync(file.path, 'r');
  try {
    // readSync reads at most 2 GB at once.
    let done = 0;
    while (done < into.length) {
      const n = readSync(
        fd,
        into,
        done,
        Math.min(into.length - done, 1 << 30),
        file.dataStart + info.data_offsets[0] + done,
      );
      if (n <= 0) throw new CheckpointFormatError(file.path, 'the file ends inside a tensor');
      done += n;
    }
  } finally {
    closeSync(fd);
  }
}

function readRaw(
  file: SafetensorsFile,
  name: string,
): { raw: Buffer; info: TensorInfo; count: number } {
  const info = tensorInfo(file, name);
  const [begin, end] = info.data_offsets;
  const raw = Buffer.alloc(end - begin);
  readBytes(file, info, raw);
  return { raw, info, count: info.shape.reduce((a, b) => a * b, 1) };
}

function toFloat32(raw: Buffer, dtype: string, count: number): Float32Array {
  const out = new Float32Array(count);
  if (dtype === 'F32') {
    out.set(new Float32Array(raw.buffer, raw.byteOffset, count));
    return out;
  }
  const halves = new Uint16Array(raw.buffer, raw.byteOffset, count);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < count; i++) bits[i] = (halves[i] ?? 0) << 16;
    return out;
  }
  for (let i = 0; i < count; i++) out[i] = halfToFloat(halves[i] ?? 0);
  return out;
}

export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** Round-to-nearest-even float32 -> float16 bits (for tests and f16 exports). */
export function floatToHalf(value: number): number {
  const f = new Float32Array([value]);
  const x = new Uint32Array(f.buffer)[0] ?? 0;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (((x >>> 23) & 0xff) === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    let half = mant >> shift;
    const rem = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rem > mid || (rem === mid && half & 1)) half++;
    return sign | half;
  }
  let half = (exp << 10) | (mant >> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && half & 1)) half++;
  return sign | half;
}

export interface TensorToWrite {
  shape: number[];
  data: Float32Array;
  /** Stored dtype (default F32). */
  dtype?: 'F32' | 'F16' | 'BF16';
}

export function serializeSafetensors(
  tensors: Record<string, TensorToWrite>,
  metadata: Record<string, string> = {},
): Buffer {
  const header: Record<string, unknown> = { __metadata__: metadata };
  const chunks: Buffer[] = [];
  let offset = 0;
  for (const [name, tensor] of Object.entries(tensors)) {
    const dtype = tensor.dtype ?? 'F32';
    const bytes = encode(tensor.data, dtype);
    header[name] = { dtype, shape: tensor.shape, data_offsets: [offset, offset + bytes.length] };
    chunks.push(bytes);
    offset += bytes.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
  return Buffer.concat([length, Buffer.from(json), ...chunks]);
}

function encode(data: Float32Array, dtype: 'F32' | 'F16' | 'BF16'): Buffer {
  if (dtype === 'F32')
    return Buffer.from(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
  const out = new Uint16Array(data.length);
  if (dtype === 'F16') {
    for (let i = 0; i < data.length; i++) out[i] = floatToHalf(data[i] ?? 0);
  } else {
    const bits = new Uint32Array(Float32Array.from(data).buffer);
    for (let i = 0; i < data.length; i++) {
      const x = bits[i] ?? 0;
      out[i] = (x + 0x7fff + ((x >>> 16) & 1)) >>> 16;
    }
  }
  return Buffer.from(out.buffer);
}

export function writeSafetensors(
  path: string,
  tensors: Record<string, TensorToWrite>,
  metadata: Record<string, string> = {},
): void {
  writeFileSync(path, serializeSafetensors(tensors, metadata));
}
