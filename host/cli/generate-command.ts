// `rlm-studio generate`: text from a local model, streamed to stdout as run.c prints it (the prompt,
// the completion, a newline); speed and backend notes go to stderr.
import { Command, InvalidArgumentError } from 'commander';
import type { BackendChoice } from '../../training/engine/index.ts';

interface GenerateCommandOptions {
  model: string;
  tokenizer?: string;
  prompt: string;
  steps: number;
  temperature: number;
  topP: number;
  seed?: number;
  backend: BackendChoice;
  precision: 'f32' | 'f16';
}

function number(min: number, max = Infinity, integer = false) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(
        `expected ${integer ? 'a whole number' : 'a number'} from ${min}${max < Infinity ? ` to ${max}` : ''}`,
      );
    }
    return n;
  };
}

function precisionChoice(value: string): 'f32' | 'f16' {
  if (value === 'f32' || value === 'f16') return value;
  throw new InvalidArgumentError('expected f32 or f16');
}

function backendChoice(value: string): BackendChoice {
  if (value === 'webgpu' || value === 'wasm' || value === 'auto') return value;
  throw new InvalidArgumentError('expected webgpu, wasm or auto');
}

export function generateCommand(): Command {
  return new Command('generate')
    .description('generate text with a local model (llama2.c .bin or Hugging Face folder)')
    .requiredOption('--model <path>', 'a llama2.c checkpoint or a Hugging Face model folder')
    .option('--tokenizer <path>', "llama2.c's tokenizer.bin (default: the one beside the model)")
    .option('--prompt <text>', 'the prompt', '')
    .option(
      '--steps <n>',
      'positions to run, prompt included (as llama2.c)',
      number(1, 1e9, true),
      256,
    )
    .option('--temperature <t>', '0 = greedy', number(0), 1)
    .option('--top-p <p>', 'nucleus sampling mass', number(0, 1), 0.9)
    .option('--seed <n>', 'random seed (default: the time)', number(0, 2 ** 53, true))
    .option(
      '--backend <name>',
      'webgpu, wasm or auto (WebGPU when an adapter exists)',
      backendChoice,
      'auto',
    )
    .option(
      '--precision <p>',
      'f32 or f16 (f16 needs WebGPU with shader-f16)',
      precisionChoice,
      'f32',
    )
    .action(async (options: GenerateCommandOptions) => {
      const { startBackend, createDecoder, generate, loadLocalModel } =
        await import('../../training/engine/index.ts');
      const info = await startBackend(options.backend);
      const local = await loadLocalModel(options.model, { tokenizer: options.tokenizer });
      for (const note of [...info.notes, ...local.notes]) console.error(`note: ${note}`);
      const decoder = createDecoder(local.model, info, {
        maxSeqLen: options.steps,
        precision: options.precision,
      });
      for (const note of decoder.notes) console.error(`note: ${note}`);
      try {
        const ids = local.tokenizer.encode(options.prompt);
        let echo = '';
        ids.slice(1).forEach((id, i) => {
          echo += Buffer.from(local.tokenizer.decodeNext(ids[i] ?? -1, id)).toString('utf8');
        });
        process.stdout.write(echo);
        const started = performance.now();
        const [result] = await generate(decoder, local.tokenizer, [options.prompt], {
          steps: options.steps,
          temperature: options.temperature,
          topP: options.topP,
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
          onText: (_seq, text) => process.stdout.write(text),
        });
        process.stdout.write('\n');
        const seconds = (performance.now() - started) / 1000;
        const positions = (result?.promptTokens.length ?? 1) - 1 + (result?.tokens.length ?? 0);
        console.error(
          `achieved tok/s: ${(positions / seconds).toFixed(1)} (${decoder.implementation}, ${info.backend}${info.adapter ? ` on ${info.adapter}` : ''})`,
        );
      } finally {
        decoder.dispose();
      }
    });
}
