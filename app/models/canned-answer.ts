// Delivers an answer that is already known (a script line, a stored response) as if a model had
// streamed it: a few onDelta chunks, chars/4 usage marked estimated, no cost. With no delay it
// never waits on a timer, so scripted runs measure the scaffold alone.
import { ModelCallCanceledError } from './errors.ts';
import { estimateUsage } from './pricing.ts';
import type { Completion, CompletionRequest } from './provider.ts';
import { abortableSleep } from './retry.ts';

const CHUNKS = 3;

export async function cannedCompletion(
  spec: string,
  model: string,
  text: string,
  request: CompletionRequest,
  delayMs = 0,
): Promise<Completion> {
  const started = performance.now();
  const { signal } = request;
  if (signal?.aborted) throw new ModelCallCanceledError(spec);
  const chunks = splitIntoChunks(text, CHUNKS);
  for (const chunk of chunks) {
    if (delayMs > 0) await abortableSleep(delayMs / chunks.length, signal, spec);
    request.onDelta?.(chunk);
  }
  return {
    text,
    usage: estimateUsage(request.messages, text),
    costUsd: 0,
    model,
    finishReason: 'stop',
    latencyMs: performance.now() - started,
  };
}

/** Splits into at most `count` non-empty pieces without cutting a surrogate pair in two. */
export function splitIntoChunks(text: string, count: number): string[] {
  const size = Math.ceil(text.length / count);
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    chunks.push(text.slice(start, end));
    start = end;
  }
  return chunks;
}
