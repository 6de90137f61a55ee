// `rlm-studio dataset ...`: evidence datasets kept in the workspace. `generate` has a teacher write
// questions over groups of similar papers of a set (Ctrl-C stops at a group edge; the same command
// resumes), `list`, `show` (questions, or the generation report with every dropped candidate's
// reason), `traces` (a teacher RLM over the train split, as an eval) and `sft-set` (its runs through
// the write-up's filter and a cap), `import`, `export` (SkyRL rows or our JSON lines), `rename`,
// `delete`.
import { writeFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { describeGrouping, GenerationOptions, type DatasetSummary } from '../../app/api/index.ts';
import {
  evidencePaper,
  exportDataset,
  generateDataset,
  importDataset,
  isDatasetFormat,
  UnknownDatasetFormatError,
} from '../../app/evidence/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import { DatasetStore, type Workspace } from '../../app/store/index.ts';
import { groupingOf } from '../commands/datasets-handlers.ts';
import { sftHandlers, startTeacherTraces } from '../commands/sft-sets-handlers.ts';
import { openEngine } from './engine.ts';
import { fraction, integer, wholeNumber, type GlobalOptions } from './options.ts';
import { progressBar, silentProgress } from './progress.ts';
import { withLibrary } from './workspace.ts';

function withStore<T>(
  command: Command,
  work: (store: DatasetStore, library: PaperLibrary, workspace: Workspace) => Promise<T> | T,
): Promise<T> {
  return withLibrary(command, (library, workspace) =>
    work(new DatasetStore(workspace.db), library, workspace),
  );
}

const money = (usd: number | null): string => (usd === null ? 'unknown' : `$${usd.toFixed(4)}`);

function summaryLine(d: DatasetSummary): string {
  const groups = d.generation ? `, groups ${d.groupsDone}/${d.groupsPlanned}` : '';
  return `${d.name}  ${d.questions} questions (train ${d.train}, validation ${d.validation}; approved ${d.approved}, rejected ${d.rejected})${groups}, cost ${money(d.costUsd)}`;
}

interface GenerateFlags {
  set: string;
  teacher: string;
  name?: string;
  groups?: number;
  groupSize: number;
  perGroup: number;
  seed: number;
  validation: number;
  json?: boolean;
}

async function runGenerate(flags: GenerateFlags, command: Command): Promise<void> {
  const options = GenerationOptions.parse({
    set: flags.set,
    teacher: flags.teacher,
    ...(flags.groups !== undefined ? { groups: flags.groups } : {}),
    groupSize: flags.groupSize,
    perGroup: flags.perGroup,
    seed: flags.seed,
    validation: flags.validation,
  });
  const name = flags.name ?? `${flags.set}-questions`;
  const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
  const bar = flags.json ? silentProgress : progressBar();
  const controller = new AbortController();
  const stop = () => {
    controller.abort();
  };
  process.once('SIGINT', stop);
  try {
    const teacher = await engine.providers(options.teacher);
    const papers = engine.papers.store
      .texts(options.set)
      .map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText));
    const store = new DatasetStore(engine.workspace.db);
    const { ranking, grouping } = await groupingOf(
      engine.paperVectors,
      options.set,
      papers.map((p) => p.id),
    );
    if (!flags.json) console.log(describeGrouping(grouping));
    const outcomes = await generateDataset({
      store,
      name,
      options,
      papers,
      teacher,
      ...(ranking ? { ranking } : {}),
      signal: controller.signal,
      onProgress: (p) => {
        bar.update(p.groupsDone, p.groupsPlanned, `${p.questions} questions, ${money(p.costUsd)}`);
      },
    }).catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
      return store.groupOutcomes(name);
    });
    const stopped = controller.signal.aborted;
    bar.finish();
    const summary = store.get(name);
    const dropped = outcomes.flatMap((o) => o.dropped);
    const failed = outcomes.filter((o) => o.status === 'failed');
    if (flags.json) {
      console.log(JSON.stringify({ dataset: summary, grouping, stopped, outcomes }));
      return;
    }
    console.log(summaryLine(summary));
    console.log(
      `${dropped.length} candidates dropped, ${failed.length} teacher replies unusable (\`rlm-studio dataset show ${name} --report\` lists why)`,
    );
    if (stopped) console.log('stopped: run the same command again to resume at the next group');
  } finally {
    process.off('SIGINT', stop);
    await engine.close();
  }
}

interface TracesFlags {
  teacher: string;
  split: 'train' | 'validation';
  limit?: number;
  concurrency?: number;
  maxTurns?: number;
  json?: boolean;
}

/** A teacher RLM over a dataset's split through the eval machinery (the same command resumes). */
async function runTraces(name: string, flags: TracesFlags, command: Command): Promise<void> {
  const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
  const bar = flags.json ? silentProgress : progressBar();
  try {
    engine.evals.onEvent((event) => {
      if (event.kind === 'eval.progress')
        bar.update(event.done, event.total, event.result.question);
    });
    const started = await startTeacherTraces(
      { workspaceDir: engine.workspace.dir, papers: engine.papers, evals: engine.evals },
      new DatasetStore(engine.workspace.db),
      {
        dataset: name,
        teacher: flags.teacher,
        split: flags.split,
        ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
        ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
        ...(flags.maxTurns !== undefined ? { maxTurns: flags.maxTurns } : {}),
      },
    );
    const { status, report } = await started.finished;
    bar.finish();
    if (flags.json) {
      console.log(JSON.stringify({ evalId: started.evalId, status, report }));
      return;
    }
    console.log(
      `eval ${started.evalId}: ${status}, ${report.done}/${report.total} runs, mean span F1 ${report.meanSpanF1?.toFixed(3) ?? '-'}`,
    );
    console.log(`next: rlm-studio dataset sft-set ${name} --eval ${started.evalId} --name NAME`);
  } finally {
    await engine.close();
  }
}

/** The write-up's filter over an eval's runs, then the cap: every run kept with its reason. */
async function runSftSet(
  name: string,
  flags: { eval: string; name: string; cap: number; json?: boolean },
  command: Command,
): Promise<void> {
  const engine = await openEngine(command.optsWithGlobals<GlobalOptions>());
  try {
    // The app's own command, so the CLI's set is the one the Datasets view would make.
    const { set } = await sftHandlers({
      db: engine.workspace.db,
      workspaceDir: engine.workspace.dir,
      papers: engine.papers,
      evals: engine.evals,
      evalStore: engine.evalStore,
      runStore: engine.runStore,
      now: Date.now,
    })['sftSets.make']({ dataset: name, evalId: flags.eval, name: flags.name, cap: flags.cap });
    if (flags.json) {
      console.log(JSON.stringify(set));
      return;
    }
    console.log(
      `SFT set '${set.name}': ${set.accepted} of ${set.considered} runs accepted (cap ${set.cap})`,
    );
    for (const run of set.runs) {
      console.log(
        `  ${run.accepted ? 'accepted' : 'rejected'} ${run.runId ?? '-'} (${run.questionId})${run.reason ? `: ${run.reason}` : ''}`,
      );
    }
  } finally {
    await engine.close();
  }
}

export function datasetCommand(): Command {
  const dataset = new Command('dataset').description(
    'evidence datasets in the workspace: generate, list, show, import, export, rename, delete',
  );
  dataset
    .command('generate')
    .description('a teacher model writes questions over groups of similar papers (resumable)')
    .requiredOption('--set <name>', 'the paper set to write questions about')
    .requiredOption('--teacher <spec>', 'the teacher model: openai:MODEL, anthropic:MODEL, ...')
    .option('--name <dataset>', 'the dataset to write (default SET-questions)')
    .option('--groups <n>', 'groups to write (default: every group the set makes)', wholeNumber)
    .option('--group-size <n>', 'papers per group', wholeNumber, 10)
    .option('--per-group <n>', 'questions kept per group', wholeNumber, 3)
    .option('--seed <n>', 'grouping and split seed', integer, 0)
    .option('--validation <x>', 'share of groups in the validation split', fraction, 0.2)
    .option('--json', 'print one JSON object: the dataset and every group outcome')
    .action(runGenerate);
  dataset
    .command('list')
    .description("the workspace's datasets")
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      await withStore(command, (store) => {
        const all = store.list();
        if (flags.json) console.log(JSON.stringify(all));
        else if (all.length === 0) console.log('no datasets yet: `rlm-studio dataset generate`');
        else for (const d of all) console.log(summaryLine(d));
      });
    });
  dataset
    .command('show')
    .description("a dataset's questions, or with --report its generation's outcomes")
    .argument('<name>', 'the dataset')
    .addOption(
      new Option('--split <split>', 'train or validation').choices(['train', 'validation']),
    )
    .addOption(
      new Option('--status <status>', 'pending, approved or rejected').choices([
        'pending',
        'approved',
        'rejected',
      ]),
    )
    .option('--report', 'every group: the teacher reply, kept count and each dropped reason')
    .option('--json', 'print JSON')
    .action(
      async (
        name: string,
        flags: {
          split?: 'train' | 'validation';
          status?: 'pending' | 'approved' | 'rejected';
          report?: boolean;
          json?: boolean;
        },
        command: Command,
      ) => {
        await withStore(command, (store) => {
          const summary = store.get(name);
          if (flags.report) {
            const outcomes = store.groupOutcomes(summary.id);
            if (flags.json) {
              console.log(JSON.stringify(outcomes));
              return;
            }
            for (const o of outcomes) {
              console.log(
                `${o.group} [${o.paperIds.join(', ')}] ${o.split}: ${o.status}, kept ${o.kept}${o.error ? `; ${o.error.name}: ${o.error.message}` : ''}`,
              );
              for (const d of o.dropped)
                console.log(`  dropped ${JSON.stringify(d.question)}: ${d.reason}`);
            }
            return;
          }
          const questions = store.questions(summary.id, {
            split: flags.split,
            status: flags.status,
          });
          if (flags.json) {
            console.log(JSON.stringify(questions));
            return;
          }
          console.log(summaryLine(summary));
          for (const q of questions) {
            console.log(`${q.id} [${q.split}, ${q.status}] ${q.question}`);
            for (const s of q.gold)
              console.log(`  ${s.paperId} ${s.start}-${s.end}: ${s.text.slice(0, 100)}`);
          }
        });
      },
    );
  dataset
    .command('import')
    .description('a dataset file into the workspace (its papers into the set its questions name)')
    .argument('<file>', 'the dataset file')
    .requiredOption('--format <format>', 'ours, skyrl or qasper')
    .requiredOption('--name <dataset>', 'the name to keep it under')
    .action(async (file: string, flags: { format: string; name: string }, command: Command) => {
      if (!isDatasetFormat(flags.format)) throw new UnknownDatasetFormatError(flags.format);
      const format = flags.format;
      await withStore(command, async (store, library) => {
        const report = await importDataset({
          store,
          library,
          path: file,
          format,
          name: flags.name,
          now: Date.now(),
        });
        console.log(`imported ${report.imported} questions as '${report.name}'`);
        for (const issue of report.issues) console.log(`  skipped ${issue}`);
      });
    });
  dataset
    .command('export')
    .description('a dataset as JSON lines: SkyRL rows (for the cluster) or ours')
    .argument('<name>', 'the dataset')
    .addOption(
      new Option('--format <format>', 'skyrl or ours').choices(['skyrl', 'ours']).default('skyrl'),
    )
    .addOption(
      new Option('--split <split>', 'train or validation only').choices(['train', 'validation']),
    )
    .requiredOption('--out <file>', 'where to write it')
    .action(
      async (
        name: string,
        flags: { format: 'skyrl' | 'ours'; split?: 'train' | 'validation'; out: string },
        command: Command,
      ) => {
        await withStore(command, (store, library) => {
          const text = exportDataset(store, library, name, {
            format: flags.format,
            split: flags.split,
          });
          writeFileSync(flags.out, text);
          console.log(`wrote ${text.split('\n').filter(Boolean).length} rows to ${flags.out}`);
        });
      },
    );
  dataset
    .command('traces')
    .description("a teacher RLM over a dataset's train split, as an eval (resumable)")
    .argument('<name>', 'the dataset')
    .requiredOption('--teacher <spec>', 'the teacher RLM: openai:MODEL, anthropic:MODEL, ...')
    .addOption(
      new Option('--split <split>', 'train or validation')
        .choices(['train', 'validation'])
        .default('train'),
    )
    .option('--limit <n>', 'the first N questions only', wholeNumber)
    .option('--concurrency <n>', 'runs at once (4)', wholeNumber)
    .option('--max-turns <n>', 'turns per agent', wholeNumber)
    .option('--json', 'print JSON')
    .action(runTraces);
  dataset
    .command('sft-set')
    .description(
      'an SFT set from teacher runs: finished, no REPL error, span F1 above 0, at most --cap',
    )
    .argument('<name>', 'the dataset the runs answered')
    .requiredOption('--eval <id>', 'the eval `dataset traces` printed')
    .requiredOption('--name <set>', 'the SFT set to make')
    .option('--cap <n>', 'most runs accepted (SFT on every run collapsed entropy)', wholeNumber, 32)
    .option('--json', 'print JSON')
    .action(runSftSet);
  dataset
    .command('rename')
    .argument('<name>', 'the dataset')
    .argument('<new-name>', 'its new name')
    .action(async (name: string, next: string, _flags: unknown, command: Command) => {
      await withStore(command, (store) => {
        console.log(summaryLine(store.rename(name, next, Date.now())));
      });
    });
  dataset
    .command('delete')
    .argument('<name>', 'the dataset')
    .action(async (name: string, _flags: unknown, command: Command) => {
      await withStore(command, (store) => {
        store.delete(name);
        console.log(`deleted '${name}'`);
      });
    });
  return dataset;
}
