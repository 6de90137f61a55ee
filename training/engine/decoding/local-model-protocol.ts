// The lines the engine and a local-model process exchange (host/children/local-model-process.ts and
// local-model-child.ts beside this file): JSON, one object per line, matched by id. Requests may
// overlap (the child batches them on its decoder); a `complete` is answered by any number of
// `delta`s and then one `completed` or `failed`.
import { z } from 'zod';
import { defineChild } from '../../../app/children/index.ts';

/** The local-model process: local-model-child.ts, or local-model.cjs beside the desktop bundle. */
export const localModelChild = defineChild(import.meta.url, {
  source: './local-model-child.ts',
  bundled: 'local-model.cjs',
});

const id = z.number().int().nonnegative();

export const LocalModelRequest = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('load'),
    id,
    /** What follows `local:`: the model file or folder. */
    path: z.string().min(1),
    spec: z.string(),
    /** RLM_STUDIO_BACKEND as the engine's environment gives it (auto when unset). */
    backend: z.string().optional(),
  }),
  z.strictObject({
    kind: z.literal('complete'),
    id,
    request: z.strictObject({
      messages: z.array(
        z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.string() }),
      ),
      agentId: z.string(),
      turn: z.number().int().nonnegative(),
      temperature: z.number().optional(),
      maxTokens: z.number().int().positive().optional(),
      seed: z.number().int().optional(),
      stop: z.array(z.string()).optional(),
      /** Send the text as it is generated. */
      stream: z.boolean(),
    }),
  }),
  /** Cancels the `complete` with this id. */
  z.strictObject({ kind: z.literal('abort'), id }),
]);
export type LocalModelRequest = z.infer<typeof LocalModelRequest>;

export const LocalModelReply = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('loaded'), id }),
  z.strictObject({ kind: z.literal('delta'), id, text: z.string() }),
  z.strictObject({
    kind: z.literal('completed'),
    id,
    completion: z.strictObject({
      text: z.string(),
      usage: z.strictObject({
        inputTokens: z.number(),
        outputTokens: z.number(),
        estimated: z.boolean().optional(),
      }),
      costUsd: z.number().nullable(),
      model: z.string(),
      finishReason: z.enum(['stop', 'length', 'other']),
      latencyMs: z.number(),
    }),
  }),
  z.strictObject({ kind: z.literal('failed'), id, name: z.string(), message: z.string() }),
]);
export type LocalModelReply = z.infer<typeof LocalModelReply>;
