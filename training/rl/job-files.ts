// A training job's folder: metrics.jsonl (one StepMetrics per line, appended as steps end),
// rollouts/step-N.jsonl (how each rollout of step N was trained, one RolloutTraining a line),
// checkpoints/step-N/ (the policy's own files) and state.json naming the last complete checkpoint.
// Invariant: state.json is replaced atomically and only after its checkpoint is fully written, so a
// job killed at any moment resumes from a complete checkpoint with the metrics it had then.
import { appendFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { StepMetrics, type RolloutTraining } from '../../app/api/index.ts';

const JobState = z.object({
  version: z.literal(1),
  /** The last step whose checkpoint is complete; its metrics line is the last one kept. */
  step: z.number().int().nonnegative(),
  checkpoint: z.string(),
});
type JobState = z.infer<typeof JobState>;

export class TrainingJobError extends Error {
  override name = 'TrainingJobError';
}

export class JobFiles {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  get metricsPath(): string {
    return join(this.dir, 'metrics.jsonl');
  }

  get statePath(): string {
    return join(this.dir, 'state.json');
  }

  checkpointDir(step: number): string {
    return join(this.dir, 'checkpoints', stepName(step));
  }

  get rolloutsDir(): string {
    return join(this.dir, 'rollouts');
  }

  /** host/commands/train-rollouts.ts reads these files by the same names. */
  rolloutsPath(step: number): string {
    return join(this.rolloutsDir, `${stepName(step)}.jsonl`);
  }

  /** Replaces step's rollouts file whole (a step run again after a resume rewrites it). */
  async writeRollouts(step: number, rollouts: readonly RolloutTraining[]): Promise<void> {
    await mkdir(this.rolloutsDir, { recursive: true });
    const path = this.rolloutsPath(step);
    await writeFile(`${path}.tmp`, rollouts.map((r) => `${JSON.stringify(r)}\n`).join(''));
    await rename(`${path}.tmp`, path);
  }

  async appendMetrics(metrics: StepMetrics): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(this.metricsPath, `${JSON.stringify(metrics)}\n`);
  }

  /** Every logged step, in order; a torn last line (a kill mid-write) is dropped. */
  async readMetrics(): Promise<StepMetrics[]> {
    let text: string;
    try {
      text = await readFile(this.metricsPath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    const metrics: StepMetrics[] = [];
    for (const [index, line] of lines.entries()) {
      let parsed: StepMetrics;
      try {
        parsed = StepMetrics.parse(JSON.parse(line));
      } catch (error) {
        if (index === lines.length - 1 && !text.endsWith('\n')) break;
        throw new TrainingJobError(
          `${this.metricsPath} line ${index + 1} is damaged (${error instanceof Error ? error.message.slice(0, 120) : String(error)})`,
        );
      }
      metrics.push(parsed);
    }
    return metrics;
  }

  /** The last complete checkpoint, or null for a job that has none yet. */
  async readState(): Promise<JobState | null> {
    let text: string;
    try {
      text = await readFile(this.statePath, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const parsed = JobState.safeParse(JSON.parse(text));
    if (!parsed.success) {
      throw new TrainingJobError(
        `${this.statePath} is damaged; delete it to start the job over from step 0`,
      );
    }
    return parsed.data;
  }

  get #donePath(): string {
    return join(this.dir, 'done.json');
  }

  /** Marks a phase that runs once (SFT) as finished: its last checkpoint is its result. */
  async markDone(step: number): Promise<void> {
    await writeFile(this.#donePath, `${JSON.stringify({ step })}\n`);
  }

  async isDone(): Promise<boolean> {
    try {
      await readFile(this.#donePath, 'utf8');
      return true;
    } catch {
      return false;
    }
  }

  /** Marks `step`'s checkpoint complete (call after the policy wrote it). */
  async commitCheckpoint(step: number): Promise<void> {
    const state: JobState = { version: 1, step, checkpoint: this.checkpointDir(step) };
    const temporary = `${this.statePath}.tmp`;
    await writeFile(temporary, `${JSON.stringify(state)}\n`);
    await rename(temporary, this.statePath);
  }

  /**
   * Back to the state of `step`: later GRPO metrics lines and rollouts files go. SFT's lines (a
   * phase of their own, before GRPO's step 1) stay, those after SFT step `sftThrough` when given.
   */
  async rewindTo(step: number, options: { sftThrough?: number } = {}): Promise<StepMetrics[]> {
    await this.#dropRolloutsAfter(step);
    const sftThrough = options.sftThrough ?? Infinity;
    const kept = (await this.readMetrics()).filter((m) =>
      m.phase === 'sft' ? m.step <= sftThrough : m.step <= step,
    );
    await mkdir(this.dir, { recursive: true });
    const temporary = `${this.metricsPath}.tmp`;
    await writeFile(temporary, kept.map((m) => `${JSON.stringify(m)}\n`).join(''));
    await rename(temporary, this.metricsPath);
    return kept;
  }

  async removeCheckpoint(step: number): Promise<void> {
    await rm(this.checkpointDir(step), { recursive: true, force: true });
  }

  async #dropRolloutsAfter(step: number): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.rolloutsDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const name of names) {
      const match = /^step-(\d+)\.jsonl/.exec(name);
      if (match && Number(match[1]) > step) await rm(join(this.rolloutsDir, name), { force: true });
    }
  }
}

function stepName(step: number): string {
  return `step-${String(step).padStart(6, '0')}`;
}
