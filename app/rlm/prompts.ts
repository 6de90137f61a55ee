// Loads the versioned prompt templates of assets/prompts and fills them in. The code-block rule
// comes from the same policy setting the loop uses, so prompt and behaviour cannot disagree.
import { readFileSync } from 'node:fs';
import type { CodeBlockPolicy } from '../api/index.ts';
import { codeBlockRule } from './response.ts';

export type PromptStyle = 'long' | 'short';

export const promptFiles = {
  long: 'rlm-system.v1.md',
  short: 'rlm-system-short.v1.md',
  child: 'rlm-child.v1.md',
} as const;

export class PromptTemplateError extends Error {
  override readonly name = 'PromptTemplateError';
}

const cache = new Map<string, string>();
// Number#toLocaleString builds a formatter per call (about 0.2 ms): one per process instead.
const thousands = new Intl.NumberFormat('en-US');

/** 12345 -> '12,345', as the prompts write counts. */
export function formatCount(n: number): string {
  return thousands.format(n);
}

export function loadTemplate(file: string): string {
  let text = cache.get(file);
  if (text === undefined) {
    text = readFileSync(new URL(`../../assets/prompts/${file}`, import.meta.url), 'utf8');
    cache.set(file, text);
  }
  return text;
}

export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new PromptTemplateError(
        `The prompt template uses {{${name}}}, which the loop does not provide`,
      );
    return value;
  });
}

export interface SystemPromptOptions {
  role: 'root' | 'child';
  style: PromptStyle;
  policy: CodeBlockPolicy;
  maxTurns: number;
  maxChildren: number;
  outputLimit: number;
  canRecurse: boolean;
  contextDescription: string;
  contextShape: string;
}

export function systemPrompt(options: SystemPromptOptions): { file: string; text: string } {
  const file = options.role === 'child' ? promptFiles.child : promptFiles[options.style];
  const text = fillTemplate(loadTemplate(file), {
    code_block_rule: codeBlockRule(options.policy),
    max_turns: String(options.maxTurns),
    max_children: String(options.maxChildren),
    output_limit: thousands.format(options.outputLimit),
    context_description: options.contextDescription,
    context_shape: options.contextShape,
    child_tools: options.canRecurse
      ? ', `rlm_query(prompt, context)` and `rlm_query_batched(prompts, contexts)` for smaller sub-problems'
      : '',
  });
  return { file, text };
}
