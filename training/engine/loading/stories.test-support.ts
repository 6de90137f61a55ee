// The shared stories260K checkpoint and llama2.c's reference outputs (../shared/data/models).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GenerateOptions } from '../decoding/generate.ts';
import { Llama2cTokenizer } from './llama2c-tokenizer.ts';

const dir = fileURLToPath(new URL('../../../../shared/data/models/stories260K/', import.meta.url));

export const STORIES260K = {
  dir,
  checkpoint: `${dir}stories260K.bin`,
  tokenizer: `${dir}tok512.bin`,
};

export function storiesTokenizer(): Llama2cTokenizer {
  return Llama2cTokenizer.fromFile(STORIES260K.tokenizer, 512);
}

export interface StoriesReference {
  name: string;
  prompt: string;
  options: GenerateOptions;
  /** run.c's stdout: the prompt echo, the completion and a newline. */
  expected: string;
}

export function storiesReference(): StoriesReference[] {
  const read = (name: string): string => readFileSync(`${dir}${name}`, 'utf8');
  return [
    {
      name: 'greedy, 200 steps, no prompt',
      prompt: '',
      options: { steps: 200, temperature: 0 },
      expected: read('greedy_n200_noprompt.txt'),
    },
    {
      name: 'greedy, 64 steps, "Once upon a time"',
      prompt: 'Once upon a time',
      options: { steps: 64, temperature: 0 },
      expected: read('greedy_n64_prompt_once_upon_a_time.txt'),
    },
    {
      name: 'greedy, 60 steps, "Zoo"',
      prompt: 'Zoo',
      options: { steps: 60, temperature: 0 },
      expected: read('greedy_n60_prompt_Zoo.txt'),
    },
    {
      name: 'sampled, temperature 1, top-p 0.9, seed 133742, 256 steps',
      prompt: '',
      options: { steps: 256, temperature: 1, topP: 0.9, seed: 133742 },
      expected: read('sample_t1.0_p0.9_s133742_n256.txt'),
    },
  ];
}
