// A llama2.c model that says one fixed text whatever its prompt: its vocabulary holds the script
// as pieces (scored so the encoder never merges into them), the residual stream carries a one-hot
// of the current token through zeroed attention and MLP, and the classifier maps every ordinary
// token to the first piece, each piece to the next and the last to BOS (run.c's end). Greedy
// decoding through the real loader, tokenizer, decoder and sampler must reproduce it exactly.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Budgets, type RunEvent } from '../../../app/api/index.ts';
import type { Provider } from '../../../app/models/index.ts';
import type { ExecutionResult } from '../../../app/repl/index.ts';
import { RlmRun, type RunOutcome } from '../../../app/rlm/index.ts';
import { writeLlama2cCheckpoint } from '../loading/llama2c-checkpoint.ts';
import type { DecoderConfig } from '../loading/model-config.ts';
import type { DecoderModel } from '../loading/weights.ts';

export function writeScriptedModel(dir: string, pieces: readonly string[]): { model: string } {
  const vocab: { text: Uint8Array; score: number }[] = [];
  const add = (text: string | Uint8Array, score = 0): number => {
    vocab.push({ text: typeof text === 'string' ? Buffer.from(text) : text, score });
    return vocab.length - 1;
  };
  add('<unk>');
  add('\n<s>\n');
  add('\n</s>\n');
  for (let byte = 0; byte < 256; byte++) {
    add(`<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`);
  }
  for (let c = 0x20; c < 0x7f; c++) add(String.fromCharCode(c));
  add('\n');
  const first = vocab.length;
  // -1e10 is the encoder's starting best score: a merge needs a strictly higher one.
  for (const piece of pieces) add(piece, -1e10);
  const size = vocab.length;
  const dim = Math.ceil(size / 4) * 4;
  const config: DecoderConfig = {
    family: 'llama2c',
    dim,
    hiddenDim: 4,
    nLayers: 1,
    nHeads: 2,
    nKvHeads: 2,
    headDim: dim / 2,
    vocabSize: size,
    maxSeqLen: 384,
    normEps: 1e-5,
    ropeTheta: 10000,
    ropeScaling: { kind: 'none' },
    ropeStyle: 'interleaved',
    tiedEmbeddings: false,
    attentionBias: false,
    qkNorm: false,
  };
  const tokenEmbedding = new Float32Array(size * dim);
  const lmHead = new Float32Array(size * dim);
  for (let t = 0; t < size; t++) {
    tokenEmbedding[t * dim + t] = 1;
    const next = t < first ? first : t + 1 < size ? t + 1 : 1;
    lmHead[next * dim + t] = 10;
  }
  const zeros = (n: number): Float32Array => new Float32Array(n);
  const ones = (n: number): Float32Array => new Float32Array(n).fill(1);
  const model: DecoderModel = {
    config,
    weights: {
      tokenEmbedding,
      lmHead,
      finalNorm: ones(dim),
      layers: [
        {
          attnNorm: ones(dim),
          wq: zeros(dim * dim),
          wk: zeros(dim * dim),
          wv: zeros(dim * dim),
          wo: zeros(dim * dim),
          bq: null,
          bk: null,
          bv: null,
          qNorm: null,
          kNorm: null,
          ffnNorm: ones(dim),
          w1: zeros(4 * dim),
          w2: zeros(4 * dim),
          w3: zeros(4 * dim),
        },
      ],
    },
  };
  const modelPath = join(dir, 'scripted.bin');
  writeLlama2cCheckpoint(modelPath, model);
  const maxLen = Math.max(...vocab.map((v) => v.text.length));
  const chunks: Buffer[] = [Buffer.from(new Int32Array([maxLen]).buffer)];
  for (const { text, score } of vocab) {
    const head = Buffer.alloc(8);
    head.writeFloatLE(score, 0);
    head.writeInt32LE(text.length, 4);
    chunks.push(head, Buffer.from(text));
  }
  writeFileSync(join(dir, 'tokenizer.bin'), Buffer.concat(chunks));
  return { model: modelPath };
}

/** The script the local-model tests give a model: one code block, then FINAL("local"). */
export const LOCAL_RLM_SCRIPT = [
  '```repl\n',
  "print('hello from a local model')",
  '\n```\n',
  'FINAL("local")',
] as const;

/**
 * An RLM run of two turns on `provider`, its code run by a REPL stand-in that answers every block
 * with one printed line: the outcome, the events and the code the model wrote.
 */
export async function runRlmOnScript(
  provider: Provider,
  runId: string,
): Promise<{ outcome: RunOutcome; events: RunEvent[]; ran: string[] }> {
  const events: RunEvent[] = [];
  const ran: string[] = [];
  const printed: ExecutionResult = {
    stdout: 'hello from a local model\n',
    stderr: '',
    error: null,
    final: null,
    variables: [],
    durationMs: 0,
    truncated: false,
  };
  const run = new RlmRun({
    runId,
    question: 'Which model answers?',
    set: 'demo',
    papers: { p1: '### PAPER: One\n\ntext one' },
    provider,
    sandbox: {
      createAgent: () => Promise.resolve(),
      run: (_key, code) => {
        ran.push(code);
        return Promise.resolve(printed);
      },
      disposeAgent: () => undefined,
    },
    budgets: Budgets.parse({ maxTurns: 2 }),
    emit: (event) => events.push(event),
  });
  return { outcome: await run.start(), events, ran };
}
