// `rlm-studio train`: the Train view's job from the command line, on workspace data. It writes a job
// folder under <workspace>/training/<id>/ as the view does (job.json; the view lists it), with the
// dataset's train split exported beside the workspace's datasets, cold-start SFT on an SFT set
// when one is named, then GRPO; and runs it here (Ctrl-C pauses after the current step;
// `rlm-studio train-job DIR` resumes it).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { TrainConfig, type StepMetrics, type TrainJobStatus } from '../../app/api/index.ts';
import { PaperLibrary } from '../../app/papers/index.ts';
import { DatasetStore, SftSetStore, openWorkspace } from '../../app/store/index.ts';
import { writeSplitFile } from '../commands/sft-sets-handlers.ts';
import { newJobId, writeJobFile, type JobFile } from '../commands/training-handlers.ts';
import { composeEngine } from '../compose/compose.ts';
import { positive, wholeNumber, workspaceOption, type GlobalOptions } from './options.ts';

interface TrainFlags {
  dataset: string;
  sftSet?: string;
  model: string;
  name?: string;
  steps: number;
  groupSize: number;
  batchSize: number;
  learningRate: number;
  sftEpochs: number;
  sftLearningRate: number;
  reward: 'rubric' | 'span-f1';
  judge?: string;
  targets: string;
  rank: number;
  maxTurns: number;
  maxTokens: number;
}

export function trainCommand(): Command {
  return new Command('train')
    .description(
      'SFT on an SFT set (optional), then GRPO, on a workspace dataset: the Train view job',
    )
    .requiredOption('--dataset <name>', 'the workspace dataset (its train split)')
    .option('--sft-set <name>', 'the SFT set for cold-start SFT (`rlm-studio dataset sft-set`)')
    .requiredOption('--model <path>', 'the base model: a Hugging Face folder or llama2.c file')
    .option('--name <job>', 'the job name (default: the dataset and the date)')
    .option('--steps <n>', 'GRPO steps', wholeNumber, 100)
    .option('--group-size <n>', 'rollouts per question', wholeNumber, 8)
    .option('--batch-size <n>', 'questions per step', wholeNumber, 16)
    .option('--learning-rate <x>', 'GRPO learning rate', positive, 1e-6)
    .option('--sft-epochs <n>', 'SFT epochs', wholeNumber, 2)
    .option('--sft-learning-rate <x>', 'SFT learning rate', positive, 1e-4)
    .addOption(
      new Option('--reward <kind>', 'rubric (needs --judge) or span-f1')
        .choices(['rubric', 'span-f1'])
        .default('span-f1'),
    )
    .option('--judge <spec>', 'the rubric judge model')
    .option(
      '--targets <modules>',
      'LoRA target modules, comma-separated',
      'q_proj,k_proj,v_proj,o_proj',
    )
    .option('--rank <n>', 'LoRA rank', wholeNumber, 8)
    .option('--max-turns <n>', 'turns per agent', wholeNumber, 10)
    .option('--max-tokens <n>', 'tokens per turn', wholeNumber, 1024)
    .action(async (flags: TrainFlags, command: Command) => {
      const workspaceDir = workspaceOption(command.optsWithGlobals<GlobalOptions>());
      const workspace = openWorkspace(workspaceDir);
      const library = new PaperLibrary(workspace.db);
      let datasetFile: string;
      let datasetName: string;
      try {
        const store = new DatasetStore(workspace.db);
        const summary = store.get(flags.dataset);
        if (flags.sftSet) new SftSetStore(workspace.db).get(flags.sftSet);
        datasetFile = writeSplitFile(workspaceDir, store, library, flags.dataset, 'train').path;
        datasetName = summary.name;
      } finally {
        await library.dispose();
        workspace.close();
      }
      const config = TrainConfig.parse({
        baseModel: flags.model,
        lora: { rank: flags.rank, alpha: 2 * flags.rank, targetModules: flags.targets.split(',') },
        learningRate: flags.learningRate,
        groupSize: flags.groupSize,
        batchSize: flags.batchSize,
        maxTurns: flags.maxTurns,
        maxTokensPerTurn: flags.maxTokens,
        reward: flags.reward,
        ...(flags.judge ? { judge: flags.judge } : {}),
        dataset: { path: datasetFile, format: 'ours', name: datasetName },
        workspace: workspaceDir,
        steps: flags.steps,
        ...(flags.sftSet
          ? {
              sft: {
                set: flags.sftSet,
                epochs: flags.sftEpochs,
                learningRate: flags.sftLearningRate,
              },
            }
          : {}),
      });
      const now = Date.now();
      const id = newJobId(now);
      const dir = join(workspaceDir, 'training', id);
      mkdirSync(dir, { recursive: true });
      const job = {
        id,
        name: flags.name ?? `${flags.dataset} ${new Date(now).toISOString().slice(0, 10)}`,
        createdAt: now,
        config,
      };
      const writeJob = (status: TrainJobStatus, error: JobFile['error']) =>
        writeJobFile(dir, { ...job, status, error });
      await writeJob('running', null);
      console.log(`job ${id} in ${dir}`);
      const { runLocalJob } = await import('../../training/rl/index.ts');
      const controller = new AbortController();
      const pause = () => {
        controller.abort();
      };
      process.once('SIGINT', pause);
      try {
        const result = await runLocalJob({
          config,
          openEngine: (ws, providers) =>
            composeEngine({ workspace: ws, shell: 'serve', providers }),
          dir,
          signal: controller.signal,
          onStep: (m: StepMetrics) => {
            process.stdout.write(
              `${m.phase} step ${m.step} loss ${m.loss.toFixed(4)} reward ${m.rewardMean?.toFixed(3) ?? '-'}\n`,
            );
          },
        });
        await writeJob(result.stopped ? 'paused' : 'done', null);
        console.log(
          result.stopped ? `paused at step ${result.steps}` : `done: ${result.steps} steps`,
        );
      } catch (error) {
        const e = error as Error;
        await writeJob('failed', { name: e.name, message: e.message });
        throw error;
      } finally {
        process.off('SIGINT', pause);
      }
    });
}
