// The datasets commands of app/api over app/store's DatasetStore and app/evidence's generation.
// A generation runs after its answer (one per dataset name at a time); its groups stream to the
// front ends as dataset.progress and its end as dataset.finished. Cancel stops it at a group edge.
import { randomUUID } from 'node:crypto';
import type {
  ApiEvent,
  CommandArgs,
  CommandResponse,
  DatasetQuestion,
  GenerationOptions,
  GoldSpan,
  Grouping,
} from '../../app/api/index.ts';
import {
  evidencePaper,
  exportDataset,
  generateDataset,
  importDataset,
  mostSimilarByVectors,
  prepareGeneration,
} from '../../app/evidence/index.ts';
import type { Provider } from '../../app/models/index.ts';
import type { PaperLibrary } from '../../app/papers/index.ts';
import { DatasetStore, SftSetStore } from '../../app/store/index.ts';
import type { DatabaseSync } from 'node:sqlite';
import { writeFileSync } from 'node:fs';

type DatasetCommand =
  | 'datasets.list'
  | 'datasets.get'
  | 'datasets.report'
  | 'datasets.generate'
  | 'datasets.cancel'
  | 'datasets.rename'
  | 'datasets.delete'
  | 'datasets.import'
  | 'datasets.export'
  | 'datasets.editQuestion'
  | 'datasets.create'
  | 'datasets.addQuestion'
  | 'datasets.deleteQuestion';

export type DatasetHandlers = {
  [C in DatasetCommand]: (args: CommandArgs<C>) => Promise<CommandResponse<C>> | CommandResponse<C>;
};

export class GenerationRunningError extends Error {
  override readonly name = 'GenerationRunningError';
  constructor(name: string) {
    super(`Dataset '${name}' is being generated already; cancel it first or wait for its end`);
  }
}

/** A set's papers as unit vectors from the embedding model set in Settings; null when none is set. */
export type PaperVectors = (
  set: string,
) => Promise<{ vectors: Map<string, Float32Array>; model: string } | null>;

/**
 * How to group a set's papers: by the map's embeddings when a model is set (each paper its
 * passages' mean), else TF-IDF; a model that cannot embed falls back to TF-IDF with its reason.
 */
export async function groupingOf(
  paperVectors: PaperVectors | undefined,
  set: string,
  paperIds: readonly string[],
): Promise<{ ranking: Map<string, string[]> | undefined; grouping: Grouping }> {
  const tfidf = (fallback: Grouping['fallback']) => ({
    ranking: undefined,
    grouping: { method: 'tfidf' as const, model: null, fallback },
  });
  let embedded: Awaited<ReturnType<PaperVectors>>;
  try {
    embedded = paperVectors ? await paperVectors(set) : null;
  } catch (error) {
    const e = error as Error;
    return tfidf({ name: e.name, message: e.message });
  }
  if (!embedded) return tfidf(null);
  const vectors = new Map(
    paperIds.map((id) => [id, embedded.vectors.get(id) ?? new Float32Array()]),
  );
  return {
    ranking: mostSimilarByVectors(vectors, paperIds.length - 1),
    grouping: { method: 'embeddings', model: embedded.model, fallback: null },
  };
}

export class GoldSpanInputError extends Error {
  override readonly name = 'GoldSpanInputError';
}

/**
 * Gold spans must be ranges of the text the REPL sees of the question's own papers, holding
 * exactly their text: a span that is not is refused by name and nothing is changed.
 */
function checkGold(
  papers: PaperLibrary,
  set: string,
  paperIds: readonly string[],
  gold: readonly GoldSpan[],
): void {
  for (const span of gold) {
    if (!paperIds.includes(span.paperId)) {
      throw new GoldSpanInputError(
        `a gold span is on paper '${span.paperId}', which is not one of the question's papers (${paperIds.join(', ')})`,
      );
    }
    const text = papers.paper(set, span.paperId).contextText;
    if (span.end <= span.start || span.end > text.length) {
      throw new GoldSpanInputError(
        `gold span ${span.start}-${span.end} is not a range of paper '${span.paperId}' (${text.length} characters)`,
      );
    }
    if (text.slice(span.start, span.end) !== span.text) {
      throw new GoldSpanInputError(
        `the text of paper '${span.paperId}' at ${span.start}-${span.end} is not the gold span's text`,
      );
    }
  }
}

export interface DatasetDeps {
  db: DatabaseSync;
  papers: PaperLibrary;
  providers: (spec: string) => Provider | Promise<Provider>;
  emit: (event: ApiEvent) => void;
  now: () => number;
  /** Paper embeddings for grouping (compose.ts: the map's); absent, TF-IDF groups. */
  paperVectors?: PaperVectors | undefined;
}

export interface DatasetService {
  handlers: DatasetHandlers;
  /** Resolves when every running generation has ended (tests, shutdown). */
  settled(): Promise<void>;
  cancelAll(): void;
}

export function datasetService(deps: DatasetDeps): DatasetService {
  const store = new DatasetStore(deps.db);
  const { emit, now } = deps;
  const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const preparing = new Set<string>();
  const busy = (name: string) => running.has(name) || preparing.has(name);
  /** What a generation needs before it starts; input errors answer the generate command. */
  const prepare = async (name: string, options: GenerationOptions) => {
    const teacher = await deps.providers(options.teacher);
    const papers = deps.papers.store
      .texts(options.set)
      .map((p) => evidencePaper(p.id, p.title, p.abstract, p.fullText));
    // A set without papers, or a name taken by other options, is a named error here.
    prepareGeneration(store, name, options, papers, now());
    const grouped = await groupingOf(
      deps.paperVectors,
      options.set,
      papers.map((p) => p.id),
    );
    return { teacher, papers, ...grouped };
  };
  const handlers: DatasetHandlers = {
    'datasets.list': () => ({ datasets: store.list() }),
    'datasets.get': ({ dataset, filter }) => ({
      dataset: store.get(dataset),
      questions: store.questions(dataset, filter),
    }),
    'datasets.report': ({ dataset }) => ({ outcomes: store.groupOutcomes(store.get(dataset).id) }),
    'datasets.generate': async ({ name, options }) => {
      if (busy(name)) throw new GenerationRunningError(name);
      // The name is taken while the teacher is made and the papers are grouped (embedding a large
      // set takes a while), so a second generate of it is refused as while it runs.
      preparing.add(name);
      const prepared = await prepare(name, options).finally(() => preparing.delete(name));
      const { teacher, papers, ranking, grouping } = prepared;
      const controller = new AbortController();
      const started = generateDataset({
        store,
        name,
        options,
        papers,
        teacher,
        ...(ranking ? { ranking } : {}),
        now,
        signal: controller.signal,
        onProgress: (p) => {
          emit({ kind: 'dataset.progress', at: now(), ...p });
        },
      });
      const done = started
        .then(
          () => {
            emit({
              kind: 'dataset.finished',
              at: now(),
              dataset: name,
              status: 'done',
              summary: store.get(name),
              error: null,
            });
          },
          (error: unknown) => {
            const e = error as Error;
            const canceled = controller.signal.aborted;
            emit({
              kind: 'dataset.finished',
              at: now(),
              dataset: name,
              status: canceled ? 'canceled' : 'failed',
              summary: store.has(name) ? store.get(name) : null,
              error: canceled ? null : { name: e.name, message: e.message },
            });
          },
        )
        .finally(() => running.delete(name));
      running.set(name, { controller, done });
      return { dataset: store.get(name), grouping };
    },
    'datasets.cancel': ({ dataset }) => {
      const job = running.get(dataset);
      job?.controller.abort();
      return { canceled: job !== undefined };
    },
    'datasets.rename': ({ dataset, name }) => {
      if (busy(dataset)) throw new GenerationRunningError(dataset);
      const before = store.get(dataset).name;
      const renamed = store.rename(dataset, name, now());
      // SFT sets name their dataset: they follow it.
      new SftSetStore(deps.db).renameDataset(before, renamed.name);
      return { dataset: renamed };
    },
    'datasets.delete': ({ dataset }) => {
      if (busy(dataset)) throw new GenerationRunningError(dataset);
      store.delete(dataset);
      return { deleted: true };
    },
    'datasets.import': async ({ path, format, name }) => {
      const report = await importDataset({
        store,
        library: deps.papers,
        path,
        format,
        name,
        now: now(),
      });
      return { dataset: store.get(name), issues: report.issues };
    },
    'datasets.export': ({ dataset, format, path, split }) => {
      const text = exportDataset(store, deps.papers, dataset, { format, split });
      writeFileSync(path, text);
      return { rows: text.split('\n').filter(Boolean).length, path };
    },
    'datasets.editQuestion': ({ dataset, id, ...edit }) => {
      if (edit.gold) {
        const current = store.question(dataset, id);
        checkGold(deps.papers, current.set, current.paperIds, edit.gold);
      }
      return { question: store.editQuestion(dataset, id, edit, now()) };
    },
    'datasets.create': ({ name }) => ({ dataset: store.create(name, now()) }),
    'datasets.addQuestion': ({ dataset, question, set, paperIds, gold, split }) => {
      store.get(dataset);
      // Each paper must be in the set (PaperSetNotFoundError, PaperNotFoundError otherwise).
      for (const id of paperIds) deps.papers.paper(set, id);
      checkGold(deps.papers, set, paperIds, gold);
      const at = now();
      const added: DatasetQuestion = {
        id: `hand-${randomUUID().slice(0, 8)}`,
        question,
        set,
        paperIds,
        gold,
        split,
        group: null,
        status: 'pending',
        provenance: { kind: 'hand', at },
        editedAt: null,
      };
      store.addQuestions(dataset, [added], at);
      return { question: store.question(dataset, added.id) };
    },
    'datasets.deleteQuestion': ({ dataset, id }) => {
      store.deleteQuestion(dataset, id, now());
      return { deleted: true };
    },
  };
  return {
    handlers,
    async settled() {
      await Promise.all([...running.values()].map((job) => job.done));
    },
    cancelAll() {
      for (const job of running.values()) job.controller.abort();
    },
  };
}
