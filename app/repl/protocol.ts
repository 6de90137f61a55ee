// The IPC protocol between ReplSandbox (host) and its interpreter process, discriminated on
// `kind`. The interpreter runs model code, so what it sends is validated here before use.
import { z } from 'zod';
import type { ReplValue } from './types.ts';

export type CallOp =
  'search' | 'rlm_query' | 'rlm_query_batched' | 'llm_query' | 'llm_query_batched';

/** Host -> interpreter. Trusted (the host wrote it). */
export type HostMessage =
  /** `context` (JSON) comes with the first agent that has it; later ones name its `contextId`. */
  | { kind: 'create'; agentId: string; contextId: number; context?: string }
  | { kind: 'forget-context'; contextId: number }
  | { kind: 'run'; runId: number; agentId: string; code: string; timeoutMs: number }
  | { kind: 'cancel'; runId: number }
  | { kind: 'dispose-agent'; agentId: string }
  | { kind: 'reply'; callId: number; envelope: string }
  | { kind: 'ping'; seq: number };

/** Settings the interpreter process reads from its argv (JSON), fixed for its lifetime. */
export interface InterpreterSettings {
  pyodideDir: string;
  pythonDir: string;
  maxMemoryBytes: number;
  maxOutputChars: number;
  collectTimeoutMs: number;
}

/** A reply to a call: the value, an error for the model to see, or the run was cancelled. */
export type CallEnvelope =
  { ok: true; value: unknown } | { ok: false; error: string } | { cancelled: true };

const replValue: z.ZodType<ReplValue> = z.lazy(() =>
  z.union([
    z.null(),
    z.boolean(),
    z.number(),
    z.string(),
    z.array(replValue),
    z.record(z.string(), replValue),
  ]),
);

export const runReportSchema = z.object({
  error: z.object({ type: z.string(), message: z.string() }).nullable(),
  final: z.object({ value: replValue, source: z.enum(['variable', 'value']) }).nullable(),
  variables: z.array(z.object({ name: z.string(), type: z.string(), repr: z.string() })),
  traceback: z.string(),
  notes: z.array(z.string()),
});
export type RunReport = z.infer<typeof runReportSchema>;

const runOutcome = z.object({
  stdout: z.string(),
  stderr: z.string(),
  droppedChars: z.number().int().nonnegative(),
  report: runReportSchema,
});
export type RunOutcome = z.infer<typeof runOutcome>;

export const interpreterMessageSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ready'), startupMs: z.number(), pythonVersion: z.string() }),
  z.object({ kind: z.literal('created'), agentId: z.string(), error: z.string().nullable() }),
  z.object({
    kind: z.literal('call'),
    callId: z.number().int(),
    runId: z.number().int(),
    op: z.enum(['search', 'rlm_query', 'rlm_query_batched', 'llm_query', 'llm_query_batched']),
    payload: z.string(),
  }),
  z.object({ kind: z.literal('result'), runId: z.number().int(), outcome: runOutcome }),
  z.object({ kind: z.literal('pong'), seq: z.number().int() }),
  z.object({ kind: z.literal('fatal'), message: z.string() }),
]);
export type InterpreterMessage = z.infer<typeof interpreterMessageSchema>;

/** What crosses the IPC channel, either way: the messages of one event-loop turn, in order. */
export const interpreterFrameSchema = z.array(interpreterMessageSchema).min(1);

// Payloads of each call op, as the built-ins send them (JSON inside `payload`).
const textRef = z.union([z.object({ ref: z.string() }), z.object({ text: z.string() })]);
export const callPayloadSchemas = {
  search: z.object({
    texts: z.record(z.string(), textRef),
    keyword: z.string(),
    window: z.number().int(),
    bidirectional: z.boolean(),
  }),
  rlm_query: z.object({ prompt: z.string(), context: replValue }),
  rlm_query_batched: z.object({
    prompts: z.array(z.string()),
    contexts: z.array(replValue).nullable(),
  }),
  llm_query: z.object({ prompt: z.string() }),
  llm_query_batched: z.object({ prompts: z.array(z.string()) }),
} satisfies Record<CallOp, z.ZodType>;
export type TextRef = z.infer<typeof textRef>;
