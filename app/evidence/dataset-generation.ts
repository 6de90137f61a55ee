// Making an evidence dataset from a paper set, as the write-up made its 1,000 questions: papers
// grouped by similarity, a teacher model writes a few questions per group with the passages that
// answer them, and only what can be verified is kept. Every gold span must be found verbatim in
// the paper's text (locate.ts without its approximate step), near-duplicate questions are dropped,
// and the split is by group. Each candidate that is not kept gets its reason in the group's
// outcome, beside the teacher's reply as it came. A group's outcome and its questions are stored
// together (app/store's DatasetStore), so a stopped generation resumes at the next group.
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type {
  DatasetQuestion,
  Dropped,
  GenerationOptions,
  GoldSpan,
  GroupOutcome,
} from '../api/index.ts';
import type { Provider } from '../models/index.ts';
import { fillTemplate, loadTemplate } from '../rlm/index.ts';
import type { DatasetStore } from '../store/index.ts';
import { PaperIndex, locateSpan } from './locate.ts';
import type { EvidencePaper } from './question.ts';
import { mostSimilarPapers } from './similar-papers.ts';

export const GENERATION_TEMPLATE = 'dataset-questions.v1.md';
/** The agent id teacher calls carry (scripted providers answer by it; the group is the turn). */
export const GENERATION_AGENT_ID = '0:dataset';
/** Word-set overlap (Jaccard) from which two questions count as the same. */
export const DUPLICATE_OVERLAP = 0.7;

export class MalformedTeacherReplyError extends Error {
  override readonly name = 'MalformedTeacherReplyError';
}

export class GenerationInputError extends Error {
  override readonly name = 'GenerationInputError';
}

const Reply = z.object({
  questions: z.array(
    z.object({
      question: z.string(),
      evidence: z.array(z.object({ paperId: z.string(), text: z.string() })),
    }),
  ),
});
type Candidate = z.infer<typeof Reply>['questions'][number];

/** The teacher's JSON; a ```json fence around it is the only leniency. */
export function parseTeacherReply(text: string): Candidate[] {
  const trimmed = text.trim();
  const body = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed)?.[1] ?? trimmed;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new MalformedTeacherReplyError(
      `the teacher's reply is not JSON (${(error as Error).message}): ${trimmed.slice(0, 120)}`,
    );
  }
  const parsed = Reply.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MalformedTeacherReplyError(
      `the teacher's reply is not {"questions": [{"question", "evidence": [{"paperId", "text"}]}]}: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`,
    );
  }
  return parsed.data.questions;
}

export interface PaperGroup {
  id: string;
  paperIds: string[];
}

/**
 * Groups of up to `size` similar papers: in a seeded order each paper not yet grouped starts a
 * group with its most similar ungrouped papers. `ranking` gives each paper's others, most similar
 * first (default: TF-IDF cosine over the texts). The same inputs give the same groups.
 */
export function groupPapers(
  papers: readonly { id: string; text: string }[],
  size: number,
  seed: number,
  ranking: Map<string, string[]> = mostSimilarPapers(papers, papers.length - 1),
): PaperGroup[] {
  const order = [...papers.map((p) => p.id)].sort(
    (a, b) => seededKey(a, seed).localeCompare(seededKey(b, seed)) || a.localeCompare(b),
  );
  const grouped = new Set<string>();
  const groups: PaperGroup[] = [];
  for (const id of order) {
    if (grouped.has(id)) continue;
    const members = [id];
    for (const other of ranking.get(id) ?? []) {
      if (members.length >= size) break;
      if (!grouped.has(other) && other !== id) members.push(other);
    }
    members.forEach((m) => grouped.add(m));
    const paperIds = [...members].sort();
    groups.push({ id: `g-${seededKey(paperIds.join('\n'), 0).slice(0, 10)}`, paperIds });
  }
  return groups;
}

function seededKey(text: string, seed: number): string {
  return createHash('sha256').update(`${seed}\n${text}`).digest('hex');
}

/** A group's split, by a hash of its id: the same group lands in the same split on every run. */
export function splitOf(group: string, seed: number, validation: number): 'train' | 'validation' {
  const unit = parseInt(seededKey(group, seed).slice(0, 8), 16) / 2 ** 32;
  return unit < validation ? 'validation' : 'train';
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

/** Jaccard overlap of two questions' word sets. */
export function questionOverlap(a: string, b: string): number {
  const x = words(a);
  const y = words(b);
  let shared = 0;
  for (const w of x) if (y.has(w)) shared++;
  const union = x.size + y.size - shared;
  return union === 0 ? 1 : shared / union;
}

export interface GroupRequest {
  group: PaperGroup;
  papers: ReadonlyMap<string, EvidencePaper>;
  set: string;
  teacher: Provider;
  options: GenerationOptions;
  /** Questions kept so far in the dataset (near-duplicates of these are dropped). */
  kept: readonly string[];
  /** The group's position, the turn of its teacher call. */
  index: number;
  now: number;
  signal?: AbortSignal | undefined;
}

/** The teacher's prompt for a group: each paper's id and the start of its text. */
export function generationPrompt(
  group: PaperGroup,
  papers: ReadonlyMap<string, EvidencePaper>,
  options: GenerationOptions,
): string {
  const blocks = group.paperIds.map((id) => {
    const text = papers.get(id)?.text ?? '';
    const cut = text.length > options.maxCharsPerPaper;
    return `<paper id="${id}">\n${text.slice(0, options.maxCharsPerPaper)}${cut ? '\n[...]' : ''}\n</paper>`;
  });
  return fillTemplate(loadTemplate(GENERATION_TEMPLATE), {
    per_group: String(options.perGroup),
    papers: blocks.join('\n\n'),
  });
}

/** Asks the teacher about one group and keeps what it can verify; never throws for the reply. */
export async function generateGroup(
  request: GroupRequest,
): Promise<{ outcome: GroupOutcome; questions: DatasetQuestion[] }> {
  const { group, papers, options } = request;
  const split = splitOf(group.id, options.seed, options.validation);
  const outcome: GroupOutcome = {
    group: group.id,
    paperIds: group.paperIds,
    split,
    status: 'done',
    kept: 0,
    dropped: [],
    reply: null,
    error: null,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: null,
  };
  let candidates: Candidate[];
  try {
    const completion = await request.teacher.complete({
      messages: [{ role: 'user', content: generationPrompt(group, papers, options) }],
      agentId: GENERATION_AGENT_ID,
      turn: request.index,
      temperature: 0,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    outcome.reply = completion.text;
    outcome.inputTokens = completion.usage.inputTokens;
    outcome.outputTokens = completion.usage.outputTokens;
    outcome.costUsd = completion.costUsd;
    candidates = parseTeacherReply(completion.text);
  } catch (error) {
    if (request.signal?.aborted) throw error;
    const e = error as Error;
    return {
      outcome: { ...outcome, status: 'failed', error: { name: e.name, message: e.message } },
      questions: [],
    };
  }
  const indexes = group.paperIds.flatMap((id) => {
    const paper = papers.get(id);
    return paper ? [new PaperIndex(paper)] : [];
  });
  const kept: DatasetQuestion[] = [];
  const seen = [...request.kept];
  const drop = (question: string | null, reason: string): void => {
    outcome.dropped.push({ group: group.id, question, reason } satisfies Dropped);
  };
  for (const candidate of candidates) {
    const text = candidate.question.trim();
    if (text === '') {
      drop(null, 'the question is empty');
      continue;
    }
    if (kept.length >= options.perGroup) {
      drop(text, `the group has its ${options.perGroup} questions already`);
      continue;
    }
    const twin = seen.find((other) => questionOverlap(other, text) >= DUPLICATE_OVERLAP);
    if (twin !== undefined) {
      drop(text, `a near-duplicate of "${twin}"`);
      continue;
    }
    const gold: GoldSpan[] = [];
    for (const span of candidate.evidence) {
      if (!group.paperIds.includes(span.paperId)) {
        drop(text, `a span names paper '${span.paperId}', which is not in the group`);
        continue;
      }
      const found = locateSpan(indexes, span, { approximate: false });
      if (!found) {
        drop(
          text,
          `a span is not in paper '${span.paperId}' verbatim: "${span.text.slice(0, 80)}"`,
        );
        continue;
      }
      const paperText = papers.get(found.paperId)?.text ?? '';
      gold.push({
        paperId: found.paperId,
        start: found.start,
        end: found.end,
        text: paperText.slice(found.start, found.end),
      });
    }
    if (gold.length === 0) {
      drop(text, 'none of its evidence could be located in the papers');
      continue;
    }
    seen.push(text);
    kept.push({
      id: `${group.id}-q${kept.length + 1}`,
      question: text,
      set: request.set,
      paperIds: group.paperIds,
      gold,
      split,
      group: group.id,
      status: 'pending',
      provenance: {
        kind: 'teacher',
        teacher: request.teacher.spec,
        prompt: GENERATION_TEMPLATE,
        at: request.now,
      },
      editedAt: null,
    });
  }
  outcome.kept = kept.length;
  return { outcome, questions: kept };
}

export interface GenerationProgress {
  dataset: string;
  groupsDone: number;
  groupsPlanned: number;
  questions: number;
  costUsd: number | null;
  /** The group just finished. */
  outcome: GroupOutcome;
}

export interface GenerateOptions {
  store: DatasetStore;
  /** The dataset to fill: created with these options if new; resumed if it exists. */
  name: string;
  options: GenerationOptions;
  /** The set's papers as the REPL sees them. */
  papers: readonly EvidencePaper[];
  teacher: Provider;
  /** Each paper's others, most similar first (embeddings); default TF-IDF. */
  ranking?: Map<string, string[]> | undefined;
  now?: () => number;
  onProgress?: (progress: GenerationProgress) => void;
  signal?: AbortSignal | undefined;
}

/**
 * Checks a generation's inputs and creates its dataset (or accepts it for resuming): a set
 * without papers, or a name taken by a dataset made otherwise, are named errors.
 */
export function prepareGeneration(
  store: DatasetStore,
  name: string,
  options: GenerationOptions,
  papers: readonly EvidencePaper[],
  now: number,
): void {
  if (papers.length === 0) {
    throw new GenerationInputError(
      `paper set '${options.set}' has no papers to write questions on`,
    );
  }
  if (store.has(name)) {
    const existing = store.get(name).generation;
    if (!existing || JSON.stringify(existing) !== JSON.stringify(options)) {
      throw new GenerationInputError(
        `dataset '${name}' exists and was not generated with these options; pick another name to generate anew`,
      );
    }
  } else {
    store.create(name, now, options);
  }
}

/**
 * Generates (or resumes) a dataset group by group. Groups already done are skipped; a failed
 * group (the teacher's reply unusable) is asked again on resume. Returns the dataset's outcomes.
 */
export async function generateDataset(request: GenerateOptions): Promise<GroupOutcome[]> {
  const { store, options, papers } = request;
  const now = request.now ?? Date.now;
  prepareGeneration(store, request.name, options, papers, now());
  const byId = new Map(papers.map((p) => [p.id, p]));
  const groups = groupPapers(papers, options.groupSize, options.seed, request.ranking).slice(
    0,
    options.groups,
  );
  store.setPlannedGroups(request.name, groups.length);
  const done = new Set(
    store
      .groupOutcomes(request.name)
      .filter((o) => o.status === 'done')
      .map((o) => o.group),
  );
  for (const [index, group] of groups.entries()) {
    if (done.has(group.id)) continue;
    request.signal?.throwIfAborted();
    const kept = store.questions(request.name).map((q) => q.question);
    const { outcome, questions } = await generateGroup({
      group,
      papers: byId,
      set: options.set,
      teacher: request.teacher,
      options,
      kept,
      index,
      now: now(),
      signal: request.signal,
    });
    store.recordGroup(request.name, outcome, questions, now());
    const summary = store.get(request.name);
    request.onProgress?.({
      dataset: request.name,
      groupsDone: summary.groupsDone,
      groupsPlanned: summary.groupsPlanned,
      questions: summary.questions,
      costUsd: summary.costUsd,
      outcome,
    });
  }
  return store.groupOutcomes(request.name);
}
