// Reading a model's response: its code blocks (chosen by the code-block policy) and a FINAL(...)
// written as the whole last line outside code. FINAL anywhere else (in reasoning) is ignored, and
// a <think> block (a reasoning model's drafts, closed or cut off) neither runs nor answers.
import type { CodeBlockPolicy } from '../api/index.ts';

const fence = /```[ \t]*(repl|python|py)?[ \t]*\r?\n([\s\S]*?)```/g;
const thinking = /<think>[\s\S]*?(?:<\/think>|$)/g;

export interface ParsedResponse {
  /** Every fenced code block, in order. */
  blocks: string[];
  /** The blocks the policy says to run. */
  toRun: string[];
  /** The text inside FINAL(...) on the last line outside code, if there is one. */
  final: string | null;
}

export function parseResponse(response: string, policy: CodeBlockPolicy): ParsedResponse {
  const text = response.replace(thinking, '\n');
  const blocks: string[] = [];
  for (const match of text.matchAll(fence)) blocks.push(match[2] ?? '');
  const outside = text.replace(fence, '\n');
  const lastLine = outside.trimEnd().split('\n').at(-1)?.trim() ?? '';
  const finalMatch = /^FINAL\(([\s\S]*)\)$/.exec(lastLine);
  let toRun: string[];
  switch (policy) {
    case 'first':
      toRun = blocks.slice(0, 1);
      break;
    case 'last':
      toRun = blocks.slice(-1);
      break;
    case 'all':
      toRun = blocks;
      break;
  }
  return { blocks, toRun, final: finalMatch ? (finalMatch[1] ?? '') : null };
}

/** The sentence of the system prompt that states the policy (the prompt is generated from it). */
export function codeBlockRule(policy: CodeBlockPolicy): string {
  switch (policy) {
    case 'first':
      return 'Only the FIRST code block of each reply runs; write one block per reply.';
    case 'last':
      return 'Only the LAST code block of each reply runs; write one block per reply.';
    case 'all':
      return 'Every code block of a reply runs, in order, in the same REPL.';
  }
}
