// Test-only: a small byte-level BPE tokenizer folder (tokenizer.json, tokenizer_config.json with a
// chat template) in the format Qwen's and Llama 3's tokenizers use.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MERGES = [
  ['Ġ', 't'],
  ['h', 'e'],
  ['Ġt', 'he'],
  ['l', 'l'],
  ['e', 'll'],
  ['h', 'ell'],
];

function byteChars(): string[] {
  const bytes: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bytes.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bytes.push(b);
  for (let b = 0xae; b <= 0xff; b++) bytes.push(b);
  const chars = new Map<number, string>(bytes.map((b) => [b, String.fromCodePoint(b)]));
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!chars.has(b)) chars.set(b, String.fromCodePoint(256 + n++));
  }
  return Array.from({ length: 256 }, (_, b) => chars.get(b) ?? '');
}

/** Writes the tokenizer; returns its vocabulary size (the model's vocab_size). */
export function writeTinyTokenizer(folder: string): number {
  const vocab: Record<string, number> = {};
  byteChars().forEach((ch, i) => (vocab[ch] = i));
  MERGES.forEach(([a, b], i) => (vocab[`${a}${b}`] = 256 + i));
  const eosId = 256 + MERGES.length;
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      {
        id: eosId,
        content: '<|endoftext|>',
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      },
    ],
    normalizer: null,
    pre_tokenizer: {
      type: 'ByteLevel',
      add_prefix_space: false,
      trim_offsets: false,
      use_regex: true,
    },
    post_processor: null,
    decoder: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges: MERGES.map(([a, b]) => `${a} ${b}`),
    },
  };
  writeFileSync(join(folder, 'tokenizer.json'), JSON.stringify(tokenizer));
  writeFileSync(
    join(folder, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'PreTrainedTokenizerFast',
      eos_token: '<|endoftext|>',
      bos_token: null,
      chat_template:
        '{% for message in messages %}{{ message.role }}: {{ message.content }}\n{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}',
    }),
  );
  return eosId + 1;
}
