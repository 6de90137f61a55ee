// Local training jobs behind the api: each job a folder under <workspace>/training/<id>/ (job.json,
// and what the trainer writes: metrics.jsonl, checkpoints, state.json). The trainer runs in a process
// of its own, started by the launcher the composition root gives (app/ may not import training/);
// its metrics file is followed and each new line goes out as a train.step event.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import {
  StepMetrics,
  TrainConfig,
  type BaseModel,
  TrainJob,
  type ApiEvent,
  type CommandArgs,
  type CommandResponse,
} from '../../app/api/index.ts';
// The start message's module alone: training/rl's index would load the training engine here.
import type { TrainerStart } from '../../training/rl/trainer-start.ts';
import { findRolloutTraining } from './train-rollouts.ts';

/** The last GRPO step logged (a job's SFT steps, logged first, count apart). */
function grpoStep(metrics: readonly StepMetrics[]): number {
  return metrics.findLast((m) => m.phase === 'grpo')?.step ?? 0;
}

/** The demo policy: a model-free bigram over a toy task, offered by name only. */
const demoModel: BaseModel = {
  path: 'toy:bigram',
  label: 'toy:bigram (demo: a model-free bigram policy on a toy task)',
  format: 'demo',
  source: 'demo',
};

/**
 * What is under <workspace>/models: a folder with config.json and safetensors weights (Hugging Face
 * layout), or a llama2.c checkpoint (.bin) with its tokenizer beside it, at the top or one folder
 * down.
 */
async function workspaceModels(dir: string): Promise<BaseModel[]> {
  const found: BaseModel[] = [];
  const visit = async (folder: string, depth: number): Promise<void> => {
    let entries: string[];
    try {
      entries = (await readdir(folder)).sort();
    } catch {
      return;
    }
    if (entries.includes('config.json') && entries.some((e) => e.endsWith('.safetensors'))) {
      found.push({
        path: folder,
        label: basename(folder),
        format: 'hugging-face',
        source: 'workspace',
      });
      return;
    }
    const tokenizer = entries.some((e) => /^tok.*\.bin$/.test(e));
    for (const entry of entries) {
      const path = join(folder, entry);
      if (tokenizer && entry.endsWith('.bin') && !entry.startsWith('tok')) {
        found.push({ path, label: entry, format: 'llama2c', source: 'workspace' });
      } else if (depth > 0 && (await stat(path)).isDirectory()) {
        await visit(path, depth - 1);
      }
    }
  };
  await visit(dir, 1);
  return found;
}

/** A running trainer process as the host sees it. */
export interface TrainerProcess {
  /** Asks it to stop after the current step (it checkpoints, then exits 0). */
  stop(): void;
  /** Called once when it ends; `stderrTail` explains a failure. */
  onExit(listener: (code: number | null, stderrTail: string) => void): void;
}

/**
 * Starts the trainer on a job folder in a child process (training/rl/train-job-main.ts, or its
 * bundle), handing it `start` (secrets included) on its stdin.
 */
export type TrainerLauncher = (jobDir: string, start: TrainerStart) => TrainerProcess;

/** A saved endpoint a model spec names, as its own spec and stored key; undefined for other specs. */
export type SavedModelResolver = (
  spec: string,
) => Promise<{ spec: string; apiKey?: string | undefined } | undefined>;

export class TrainJobNotFoundError extends Error {
  override readonly name = 'TrainJobNotFoundError';
  constructor(id: string) {
    super(`there is no training job '${id}' in this workspace (was its folder deleted?)`);
  }
}

export class TrainJobBusyError extends Error {
  override readonly name = 'TrainJobBusyError';
  constructor(id: string) {
    super(`training job '${id}' is already running; stop it first`);
  }
}

export class TrainerUnavailableError extends Error {
  override readonly name = 'TrainerUnavailableError';
  constructor() {
    super(
      'this engine was started without the local trainer (training/); start the app with `npm start` or `rlm-studio serve`',
    );
  }
}

const JobFile = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: z.number(),
  config: TrainConfig,
  status: TrainJob.shape.status,
  error: TrainJob.shape.error,
});
export type JobFile = z.infer<typeof JobFile>;

/** A new job's id: its day and 8 hex digits (`2026-12-07-1a2b3c4d`), its folder's name. */
export function newJobId(now: number): string {
  return `${new Date(now).toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
}

/** Writes a job folder's job.json whole (a temporary file renamed over it). */
export async function writeJobFile(dir: string, job: JobFile): Promise<void> {
  const path = join(dir, 'job.json');
  await writeFile(`${path}.tmp`, `${JSON.stringify(job, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

type TrainCommand =
  | 'train.jobs'
  | 'train.start'
  | 'train.metrics'
  | 'train.rollout'
  | 'train.stop'
  | 'train.resume'
  | 'train.models';
export type TrainingHandlers = {
  [C in TrainCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>>;
};

export interface TrainingHandlerOptions {
  launcher?: TrainerLauncher | undefined;
  /** Resolves a judge that names a saved endpoint (the trainer cannot read the app's vault). */
  resolveSaved?: SavedModelResolver | undefined;
  /** How often a running job's metrics file is read. */
  pollMs?: number;
}

/**
 * The training.* commands. Longer than ~60 lines as a table: one short entry per command, over the
 * jobs they share (running children, metrics polling); the command host dispatches by key.
 */
export function trainingHandlers(
  workspaceDir: string,
  emit: (event: ApiEvent) => void,
  now: () => number,
  options: TrainingHandlerOptions = {},
): TrainingHandlers & { dispose: () => void } {
  const root = join(workspaceDir, 'training');
  const running = new Map<string, { process: TrainerProcess; timer: NodeJS.Timeout }>();
  const stopping = new Set<string>();
  const pollMs = options.pollMs ?? 300;

  const jobDir = (id: string) => join(root, id);
  const readJob = async (id: string): Promise<JobFile> => {
    let text: string;
    try {
      text = await readFile(join(jobDir(id), 'job.json'), 'utf8');
    } catch {
      throw new TrainJobNotFoundError(id);
    }
    return JobFile.parse(JSON.parse(text));
  };
  const writeJob = (job: JobFile): Promise<void> => writeJobFile(jobDir(job.id), job);
  const metricsOf = async (id: string): Promise<StepMetrics[]> => {
    let text: string;
    try {
      text = await readFile(join(jobDir(id), 'metrics.jsonl'), 'utf8');
    } catch {
      return [];
    }
    // Only complete lines: the trainer may be writing the last one.
    return text
      .split('\n')
      .slice(0, -1)
      .filter((line) => line.trim() !== '')
      .map((line) => StepMetrics.parse(JSON.parse(line)));
  };
  const view = async (job: JobFile): Promise<TrainJob> => ({
    ...job,
    // 'running' on disk with no process here: the app was closed or crashed mid-job. It resumes
    // from its last checkpoint like a paused one.
    status: job.status === 'running' && !running.has(job.id) ? 'paused' : job.status,
    step: grpoStep(await metricsOf(job.id)),
  });
  const changed = async (job: JobFile) => {
    emit({ kind: 'train.jobChanged', at: now(), job: await view(job) });
  };

  /** What the trainer needs for this config from the app (a missing endpoint fails here, by name). */
  const trainerStart = async (config: TrainConfig): Promise<TrainerStart> => {
    const judge =
      config.reward === 'rubric' && config.judge
        ? await options.resolveSaved?.(config.judge)
        : undefined;
    if (!judge) return {};
    return { judge: { spec: judge.spec, ...(judge.apiKey ? { apiKey: judge.apiKey } : {}) } };
  };

  const launch = async (job: JobFile, start: TrainerStart): Promise<void> => {
    const launcher = options.launcher;
    if (!launcher) throw new TrainerUnavailableError();
    if (running.has(job.id)) throw new TrainJobBusyError(job.id);
    let sent = (await metricsOf(job.id)).length;
    const process = launcher(jobDir(job.id), start);
    const follow = async () => {
      const metrics = await metricsOf(job.id).catch(() => []);
      // A resumed job rewinds its file to the checkpoint: send from where the file now ends.
      if (metrics.length < sent) sent = metrics.length;
      for (const line of metrics.slice(sent)) {
        emit({ kind: 'train.step', at: now(), jobId: job.id, metrics: line });
      }
      sent = metrics.length;
    };
    const timer = setInterval(() => void follow(), pollMs);
    running.set(job.id, { process, timer });
    process.onExit((code, stderrTail) => {
      clearInterval(timer);
      void (async () => {
        await follow();
        running.delete(job.id);
        const paused = stopping.delete(job.id);
        const last = grpoStep(await metricsOf(job.id));
        const failed = code !== 0;
        const next: JobFile = {
          ...job,
          status: failed
            ? 'failed'
            : last >= job.config.steps
              ? 'done'
              : paused
                ? 'paused'
                : 'done',
          error: failed
            ? {
                name: 'TrainerExitedError',
                message: `the trainer exited with code ${code ?? 'null'}${stderrTail ? `: ${stderrTail}` : ''}`,
              }
            : null,
        };
        await writeJob(next);
        await changed(next);
      })();
    });
  };

  return {
    'train.jobs': async () => {
      if (!existsSync(root)) return { jobs: [] };
      const jobs: TrainJob[] = [];
      for (const id of await readdir(root)) {
        if (!(await stat(jobDir(id))).isDirectory()) continue;
        try {
          jobs.push(await view(await readJob(id)));
        } catch {
          // A folder without a readable job.json is not a job (a partial copy, a stray folder).
        }
      }
      return { jobs: jobs.sort((a, b) => b.createdAt - a.createdAt) };
    },

    'train.start': async ({ name, config }) => {
      if (!options.launcher) throw new TrainerUnavailableError();
      const start = await trainerStart(config);
      const id = newJobId(now());
      // Rollouts are ordinary runs of this workspace, so they open in the debugger.
      const job: JobFile = {
        id,
        name,
        createdAt: now(),
        config: { ...config, workspace: config.workspace ?? workspaceDir },
        status: 'running',
        error: null,
      };
      await mkdir(jobDir(id), { recursive: true });
      await writeJob(job);
      await launch(job, start);
      await changed(job);
      return { job: await view(job) };
    },

    'train.metrics': async ({ jobId }) => {
      const job = await readJob(jobId);
      return { job: await view(job), metrics: await metricsOf(jobId) };
    },

    'train.rollout': async ({ jobId, runId, step }) => {
      await readJob(jobId);
      return { rollout: await findRolloutTraining(jobDir(jobId), jobId, runId, step) };
    },

    'train.stop': async ({ jobId }) => {
      await readJob(jobId);
      const entry = running.get(jobId);
      if (!entry) return { stopping: false };
      stopping.add(jobId);
      entry.process.stop();
      return { stopping: true };
    },

    'train.resume': async ({ jobId }) => {
      const job = await readJob(jobId);
      const next: JobFile = { ...job, status: 'running', error: null };
      await launch(next, await trainerStart(next.config));
      await writeJob(next);
      await changed(next);
      return { job: await view(next) };
    },

    'train.models': async () => {
      const models = await workspaceModels(join(workspaceDir, 'models'));
      const known = new Set(models.map((m) => m.path));
      const jobs = existsSync(root) ? await readdir(root) : [];
      for (const id of jobs.sort().reverse()) {
        const path = await readJob(id).then(
          (job) => job.config.baseModel,
          () => null,
        );
        if (path === null || path.startsWith('toy:') || known.has(path)) continue;
        known.add(path);
        const format = path.endsWith('.bin') ? 'llama2c' : 'hugging-face';
        models.push({ path, label: basename(path), format, source: 'job' });
      }
      return { models: [...models, demoModel] };
    },

    dispose: () => {
      for (const { process, timer } of running.values()) {
        clearInterval(timer);
        process.stop();
      }
      running.clear();
    },
  };
}
