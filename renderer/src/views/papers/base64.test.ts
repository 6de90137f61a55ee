// Decoding the engine's base64 PDFs back to the exact bytes.
import { describe, expect, it } from 'vitest';
import { bytesFromBase64 } from './base64.ts';

describe('bytesFromBase64', () => {
  it('gives back every byte value, high ones included', () => {
    const original = Uint8Array.from({ length: 256 }, (_, i) => i);
    const base64 = btoa(String.fromCharCode(...original));
    expect(bytesFromBase64(base64)).toEqual(original);
  });

  it('decodes a PDF header', () => {
    expect(new TextDecoder().decode(bytesFromBase64('JVBERi0xLjc='))).toBe('%PDF-1.7');
  });
});
