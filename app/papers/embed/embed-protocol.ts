// The messages between the engine and its embedding process (one JSON object a line on stdio),
// validated where they enter either side. Vectors travel as base64 float32.
import { z } from 'zod';
import { defineChild } from '../../children/index.ts';

/** The embedding process: embed-child.ts, or embed-child.cjs beside the desktop bundle. */
export const embedChild = defineChild(import.meta.url, {
  source: './embed-child.ts',
  bundled: 'embed-child.cjs',
});

const ModelFolderMessage = z.object({
  path: z.string(),
  name: z.string(),
  modelType: z.string(),
  fingerprint: z.string(),
});

export const EmbedRequest = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('knows'), id: z.number().int(), modelType: z.string() }),
  z.object({ kind: z.literal('load'), id: z.number().int(), model: ModelFolderMessage }),
  z.object({ kind: z.literal('embed'), id: z.number().int(), texts: z.array(z.string()) }),
]);
export type EmbedRequest = z.infer<typeof EmbedRequest>;

export const EmbedReply = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('knows'), id: z.number().int(), known: z.boolean() }),
  z.object({ kind: z.literal('loaded'), id: z.number().int() }),
  z.object({ kind: z.literal('embedded'), id: z.number().int(), vectors: z.array(z.string()) }),
  z.object({
    kind: z.literal('failed'),
    id: z.number().int(),
    name: z.string(),
    message: z.string(),
  }),
]);
export type EmbedReply = z.infer<typeof EmbedReply>;

export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  const vector = new Float32Array(bytes.length / 4);
  new Uint8Array(vector.buffer).set(bytes);
  return vector;
}
