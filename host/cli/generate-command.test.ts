// `rlm-studio generate` as a user runs it: llama2.c's output for stories260K on the CPU backend,
// and a clear message (no crash) when WebGPU is forced where no adapter exists.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STORIES260K } from '../../training/engine/loading/stories.test-support.ts';

const launcher = new URL('../../bin/rlm-studio.js', import.meta.url).pathname;

function generate(args: string[], env: Record<string, string> = {}) {
  return spawnSync(
    process.execPath,
    [launcher, 'generate', '--model', STORIES260K.checkpoint, ...args],
    { encoding: 'utf8', env: { ...process.env, ...env } },
  );
}

describe('rlm-studio generate', () => {
  it('prints what llama2.c prints, greedy and seeded', () => {
    const greedy = generate([
      '--prompt',
      'Zoo',
      '--steps',
      '60',
      '--temperature',
      '0',
      '--backend',
      'wasm',
    ]);
    expect(greedy.status).toBe(0);
    expect(greedy.stdout).toBe(readFileSync(`${STORIES260K.dir}greedy_n60_prompt_Zoo.txt`, 'utf8'));
    expect(greedy.stderr).toMatch(/achieved tok\/s: [\d.]+/);
    const sampled = generate([
      '--tokenizer',
      STORIES260K.tokenizer,
      '--steps',
      '256',
      '--temperature',
      '1',
      '--top-p',
      '0.9',
      '--seed',
      '133742',
      '--backend',
      'wasm',
    ]);
    expect(sampled.stdout).toBe(
      readFileSync(`${STORIES260K.dir}sample_t1.0_p0.9_s133742_n256.txt`, 'utf8'),
    );
  });

  it('names the missing WebGPU adapter when WebGPU is forced', () => {
    const result = generate(['--steps', '8', '--backend', 'webgpu'], {
      VK_ICD_FILENAMES: '/nonexistent/icd.json',
      XDG_RUNTIME_DIR: '/tmp',
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('NoWebGpuAdapterError: no WebGPU adapter');
    expect(result.stderr).toContain('--backend wasm');
    const auto = generate(['--steps', '8', '--temperature', '0'], {
      VK_ICD_FILENAMES: '/nonexistent/icd.json',
      XDG_RUNTIME_DIR: '/tmp',
    });
    expect(auto.status).toBe(0);
    expect(auto.stderr).toContain('note: WebGPU unavailable');
  });

  it('rejects bad options by name', () => {
    const result = generate(['--backend', 'cuda']);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain('expected webgpu, wasm or auto');
  });
});
