// The host side of the built-ins that need the loop or the papers: decode a call from the
// interpreter, run it against the callbacks or the search function, encode the reply. Invariant:
// a call never rejects; failures come back as { ok: false, error } for the model to read.
import { callPayloadSchemas, type CallEnvelope, type CallOp, type TextRef } from './protocol.ts';
import type { AgentContext, ReplCallbacks, ReplSearch, ReplValue } from './types.ts';

export interface CallTarget {
  agentId: string;
  context: AgentContext;
  /** The texts object passed to search() for the whole context (stable, so indexes can be cached). */
  contextTexts: Readonly<Record<string, string>>;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Turns the texts a built-in sent (inline or by reference to the agent's context) into strings. */
export function resolveTexts(
  target: CallTarget,
  texts: Record<string, TextRef>,
): Readonly<Record<string, string>> {
  const entries = Object.entries(texts);
  const own = target.contextTexts;
  const ownKeys = Object.keys(own);
  const whole =
    entries.length === ownKeys.length &&
    entries.every(([key, ref]) => 'ref' in ref && ref.ref === key && key in own);
  if (whole) return own;
  const resolved: Record<string, string> = {};
  for (const [key, ref] of entries) {
    if ('text' in ref) {
      resolved[key] = ref.text;
      continue;
    }
    const text = own[ref.ref];
    if (text === undefined)
      throw new Error(`search(): text reference '${ref.ref}' is not part of this agent's context`);
    resolved[key] = text;
  }
  return resolved;
}

export async function handleCall(
  op: CallOp,
  payloadJson: string,
  target: CallTarget,
  callbacks: ReplCallbacks,
  search: ReplSearch,
): Promise<CallEnvelope> {
  try {
    const raw: unknown = JSON.parse(payloadJson);
    return { ok: true, value: await dispatch(op, raw, target, callbacks, search) };
  } catch (error) {
    return { ok: false, error: message(error) };
  }
}

async function dispatch(
  op: CallOp,
  raw: unknown,
  target: CallTarget,
  callbacks: ReplCallbacks,
  search: ReplSearch,
): Promise<unknown> {
  const { agentId } = target;
  switch (op) {
    case 'search': {
      const payload = callPayloadSchemas.search.parse(raw);
      const texts = resolveTexts(target, payload.texts);
      const found = search(texts, payload.keyword, {
        window: payload.window,
        bidirectional: payload.bidirectional,
      });
      const hits: Record<string, string[]> = {};
      for (const [key, list] of Object.entries(found.hits)) hits[key] = list.map((hit) => hit.text);
      return { fuzzy: found.fuzzy, hits };
    }
    case 'rlm_query': {
      const payload = callPayloadSchemas.rlm_query.parse(raw);
      return await callbacks.rlmQuery(agentId, payload.prompt, payload.context);
    }
    case 'rlm_query_batched': {
      const payload = callPayloadSchemas.rlm_query_batched.parse(raw);
      const answers: ReplValue[] = await callbacks.rlmQueryBatched(
        agentId,
        payload.prompts,
        payload.contexts,
      );
      if (answers.length !== payload.prompts.length) {
        throw new Error(
          `rlm_query_batched: the loop returned ${String(answers.length)} answers for ${String(payload.prompts.length)} prompts`,
        );
      }
      return answers;
    }
    case 'llm_query': {
      const payload = callPayloadSchemas.llm_query.parse(raw);
      return await callbacks.llmQuery(agentId, payload.prompt);
    }
    case 'llm_query_batched': {
      const payload = callPayloadSchemas.llm_query_batched.parse(raw);
      return await callbacks.llmQueryBatched(agentId, payload.prompts);
    }
  }
}
