// A training job's per-rollout records (rollouts/step-N.jsonl, written by training/rl's JobFiles
// under the same names): the one a run of the job was trained with, for `train.rollout`.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RolloutTraining } from '../../app/api/index.ts';

export class RolloutNotTrainedError extends Error {
  override readonly name = 'RolloutNotTrainedError';
  constructor(runId: string, jobId: string) {
    super(
      `run '${runId}' is not a rollout of training job '${jobId}' (or its step was rolled back by a resume); open it from the job's GRPO groups`,
    );
  }
}

const stepFile = /^step-(\d+)\.jsonl$/;

function stepFileName(step: number): string {
  return `step-${String(step).padStart(6, '0')}.jsonl`;
}

/** The steps whose rollouts a job has on disk, newest first. */
async function stepsOnDisk(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .map((name) => stepFile.exec(name)?.[1])
    .filter((step): step is string => step !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
}

async function findIn(path: string, runId: string): Promise<RolloutTraining | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  for (const line of text.split('\n')) {
    // Cheap test first: a step file holds every rollout of the step.
    if (!line.includes(runId)) continue;
    const rollout = RolloutTraining.parse(JSON.parse(line));
    if (rollout.runId === runId) return rollout;
  }
  return null;
}

/** `runId`'s record in the job folder: in `step`'s file when given, else the newest step's holding it. */
export async function findRolloutTraining(
  jobDir: string,
  jobId: string,
  runId: string,
  step?: number,
): Promise<RolloutTraining> {
  const dir = join(jobDir, 'rollouts');
  const steps = step !== undefined ? [step] : await stepsOnDisk(dir);
  for (const candidate of steps) {
    const found = await findIn(join(dir, stepFileName(candidate)), runId);
    if (found) return found;
  }
  throw new RolloutNotTrainedError(runId, jobId);
}
