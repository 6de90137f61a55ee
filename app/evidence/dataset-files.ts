// Workspace datasets to and from files: import a QASPER, SkyRL or our JSON-lines dataset (its
// carried papers go into the workspace set its questions name, each gold span is located in its
// paper so it has a character range), export SkyRL rows (RLM-SPEC section 4, what the cluster
// trains on) or our JSON lines (spans' ranges kept in the row's metadata).
import type { DatasetQuestion, GoldSpan } from '../api/index.ts';
import type { PaperLibrary } from '../papers/index.ts';
import type { DatasetStore } from '../store/index.ts';
import { loadDataset, paperLookup } from './load.ts';
import { PaperIndex, locateSpan } from './locate.ts';
import { materialiseDatasetPapers } from './materialise.ts';
import type { DatasetFormat, EvidenceQuestion } from './question.ts';
import { toSkyrlRow } from './skyrl-dataset.ts';
import { toOurRow } from './studio-dataset.ts';

export interface ImportReport {
  name: string;
  imported: number;
  /** Rows that did not load, questions without a locatable span, spans dropped: with reasons. */
  issues: string[];
}

export async function importDataset(request: {
  store: DatasetStore;
  library: PaperLibrary;
  path: string;
  format: DatasetFormat;
  name: string;
  now: number;
}): Promise<ImportReport> {
  const { store, library, now } = request;
  const dataset = await loadDataset(request.path, request.format);
  await materialiseDatasetPapers(library, dataset, request.path);
  const papersOf = paperLookup(dataset, library);
  const issues = dataset.issues.map(
    (issue) =>
      `${issue.line !== undefined ? `line ${issue.line}` : (issue.id ?? '?')}: ${issue.reason}`,
  );
  const questions: DatasetQuestion[] = [];
  for (const question of dataset.questions) {
    const papers = papersOf(question);
    const indexes = papers.map((paper) => new PaperIndex(paper));
    const gold: GoldSpan[] = [];
    for (const span of question.gold) {
      const found = locateSpan(indexes, span);
      if (!found) {
        issues.push(
          `${question.id}: a gold span is in none of its papers: "${span.text.slice(0, 80)}"`,
        );
        continue;
      }
      const text = papers.find((p) => p.id === found.paperId)?.text ?? '';
      gold.push({
        paperId: found.paperId,
        start: found.start,
        end: found.end,
        text: text.slice(found.start, found.end),
      });
    }
    if (gold.length === 0 && question.gold.length > 0) {
      issues.push(`${question.id}: dropped, none of its gold spans could be located`);
      continue;
    }
    questions.push({
      id: question.id,
      question: question.question,
      set: question.set,
      paperIds: question.paperIds ?? papers.map((p) => p.id),
      gold,
      split: question.metadata.split === 'validation' ? 'validation' : 'train',
      group: typeof question.metadata.group === 'string' ? question.metadata.group : null,
      status: 'pending',
      provenance: { kind: 'imported', format: request.format, from: request.path, at: now },
      editedAt: null,
    });
  }
  store.create(request.name, now);
  store.addQuestions(request.name, questions, now);
  return { name: request.name, imported: questions.length, issues };
}

function evidenceQuestion(q: DatasetQuestion): EvidenceQuestion {
  return {
    id: q.id,
    question: q.question,
    set: q.set,
    paperIds: q.paperIds,
    gold: q.gold.map((span) => ({ paperId: span.paperId, text: span.text })),
    metadata: {
      split: q.split,
      ...(q.group !== null ? { group: q.group } : {}),
      status: q.status,
      spans: q.gold.map(({ paperId, start, end }) => ({ paperId, start, end })),
    },
  };
}

export interface ExportOptions {
  format: 'skyrl' | 'ours';
  split?: 'train' | 'validation' | undefined;
  /** Leave out rejected questions (default true). */
  skipRejected?: boolean | undefined;
}

/** The dataset as JSON lines, one row per question. */
export function exportDataset(
  store: DatasetStore,
  library: PaperLibrary,
  name: string,
  options: ExportOptions,
): string {
  const questions = store
    .questions(name, { split: options.split })
    .filter((q) => !(options.skipRejected !== false && q.status === 'rejected'));
  // Our datasets name workspace sets: the papers come from there.
  const lookup = paperLookup(
    { name, format: 'ours', questions: [], issues: [], papers: new Map(), hasEvidenceF1: false },
    library,
  );
  const lines = questions.map((q) => {
    const question = evidenceQuestion(q);
    return JSON.stringify(
      options.format === 'ours' ? toOurRow(question) : toSkyrlRow(question, lookup(question)),
    );
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
