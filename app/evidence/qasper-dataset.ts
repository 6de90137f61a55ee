// QASPER (the official test or dev JSON, or the release .tgz holding it) as an evidence dataset:
// every question with its evidence paragraphs, over the papers app/papers builds from the same
// file. Single-paper: each question sees its own paper; multi-paper: its paper plus the 9 most
// similar QASPER papers (TF-IDF cosine), like the published task.
import { basename } from 'node:path';
import { z } from 'zod';
import { QasperPaper, contextText, qasperLayout } from '../papers/index.ts';
import { DatasetFileError } from './errors.ts';
import { describeZodIssue } from './json-lines.ts';
import type { EvidenceDataset, EvidencePaper, EvidenceQuestion, RowIssue } from './question.ts';
import { mostSimilarPapers } from './similar-papers.ts';
import { readTar } from './tar-archive.ts';

const Answer = z
  .object({
    unanswerable: z.boolean(),
    extractive_spans: z.array(z.string()),
    yes_no: z.boolean().nullable(),
    free_form_answer: z.string(),
    evidence: z.array(z.string()),
  })
  .loose();

const Qa = z
  .object({
    question: z.string(),
    question_id: z.string().min(1),
    answers: z.array(z.object({ answer: Answer }).loose()),
  })
  .loose();

export interface QasperOptions {
  /** Each question's paper plus its 9 most similar (default: its paper alone). */
  multiPaper?: boolean;
  /** Papers per question in the multi-paper variant (default 10). */
  groupSize?: number;
  /** Drop "FLOAT SELECTED" (figure and table) evidence, as the evaluator's --text_evidence_only. */
  textEvidenceOnly?: boolean;
  /** The workspace set the papers go to (default: the JSON file's name). */
  set?: string;
}

/** The QASPER JSON inside a .tgz/.tar, or the bytes themselves when they are JSON. */
export function qasperJson(path: string, data: Uint8Array): { fileName: string; data: Uint8Array } {
  if (/\.(tgz|tar\.gz|tar)$/i.test(path)) {
    const json = readTar(path, data).find(
      (file) => file.name.endsWith('.json') && !basename(file.name).startsWith('._'),
    );
    if (!json) throw new DatasetFileError(path, 'the archive holds no .json file');
    return { fileName: basename(json.name), data: json.data };
  }
  return { fileName: basename(path), data };
}

/** What the official evaluator counts as one annotator's evidence. */
function annotatorEvidence(answer: z.infer<typeof Answer>, textOnly: boolean): string[] {
  if (answer.unanswerable) return [];
  return textOnly ? answer.evidence.filter((e) => !e.includes('FLOAT SELECTED')) : answer.evidence;
}

/** The gold spans: the first annotator with evidence and no repeated strings (else the first). */
function goldEvidence(annotations: readonly string[][]): string[] {
  const withEvidence = annotations.filter((evidence) => evidence.length > 0);
  return (
    withEvidence.find((evidence) => new Set(evidence).size === evidence.length) ??
    withEvidence[0] ??
    []
  );
}

function paperOf(id: string, paper: QasperPaper, annotated: ReadonlySet<string>): EvidencePaper {
  const layout = qasperLayout(paper);
  const { text, offset } = contextText(paper.title, paper.abstract, layout.fullText);
  // Annotators sometimes cite a paragraph without its surrounding spaces: cite it as they do.
  const variants = new Map<string, string>();
  for (const evidence of annotated) variants.set(evidence.trim(), evidence);
  return {
    id,
    title: paper.title,
    abstract: paper.abstract,
    fullText: layout.fullText,
    offset,
    text,
    units: layout.units.map((unit) => ({
      evidence: variants.get(unit.evidence.trim()) ?? unit.evidence,
      start: unit.start + offset,
      end: unit.end + offset,
    })),
    annotatedEvidence: annotated,
  };
}

export function parseQasperDataset(
  path: string,
  data: Uint8Array,
  options: QasperOptions = {},
): EvidenceDataset {
  const json = qasperJson(path, data);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(json.data).toString('utf8'));
  } catch (error) {
    throw new DatasetFileError(
      path,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new DatasetFileError(path, 'expected QASPER JSON: an object mapping paper ids to papers');
  const set = options.set ?? json.fileName.replace(/\.json$/i, '');
  const textOnly = options.textEvidenceOnly ?? false;
  const papers = new Map<string, EvidencePaper>();
  const questions: EvidenceQuestion[] = [];
  const issues: RowIssue[] = [];
  for (const [paperId, raw] of Object.entries(parsed)) {
    const paper = QasperPaper.safeParse(raw);
    if (!paper.success) {
      issues.push({ id: paperId, reason: `paper ${paperId}: ${describeZodIssue(paper.error)}` });
      continue;
    }
    if (paper.data.full_text.length === 0 && (paper.data.qas ?? []).length > 0) {
      issues.push({ id: paperId, reason: `paper ${paperId} has no full text (a flattened file?)` });
      continue;
    }
    const { questions: paperQuestions, annotated } = paperQas(
      paperId,
      paper.data,
      set,
      textOnly,
      issues,
    );
    papers.set(paperId, paperOf(paperId, paper.data, annotated));
    questions.push(...paperQuestions);
  }
  if (options.multiPaper) groupSimilarPapers(papers, questions, options.groupSize ?? 10);
  return {
    name: json.fileName.replace(/\.json$/i, '') + (options.multiPaper ? '-multi' : ''),
    format: 'qasper',
    questions,
    issues,
    papers: new Map([[set, papers]]),
    hasEvidenceF1: true,
  };
}

/** A paper's questions; a malformed one is an issue, the rest load. Also the annotated evidence. */
function paperQas(
  paperId: string,
  paper: QasperPaper,
  set: string,
  textOnly: boolean,
  issues: RowIssue[],
): { questions: EvidenceQuestion[]; annotated: Set<string> } {
  const annotated = new Set<string>();
  const questions: EvidenceQuestion[] = [];
  for (const [index, rawQa] of (paper.qas ?? []).entries()) {
    const qa = Qa.safeParse(rawQa);
    if (!qa.success) {
      issues.push({
        id: paperId,
        reason: `paper ${paperId}, question ${index}: ${describeZodIssue(qa.error)}`,
      });
      continue;
    }
    const annotations = qa.data.answers.map((entry) => annotatorEvidence(entry.answer, textOnly));
    for (const entry of qa.data.answers) for (const e of entry.answer.evidence) annotated.add(e);
    questions.push({
      id: qa.data.question_id,
      question: qa.data.question.trim(),
      set,
      paperIds: [paperId],
      gold: goldEvidence(annotations).map((text) => ({ paperId, text })),
      annotations,
      metadata: { qasperPaperId: paperId },
    });
  }
  return { questions, annotated };
}

/** Multi-paper questions: each question's paper with the `groupSize - 1` most similar ones. */
function groupSimilarPapers(
  papers: ReadonlyMap<string, EvidencePaper>,
  questions: EvidenceQuestion[],
  groupSize: number,
): void {
  const similar = mostSimilarPapers(
    [...papers.values()].map((paper) => ({ id: paper.id, text: paper.text })),
    groupSize - 1,
  );
  for (const question of questions) {
    const own = question.paperIds?.[0] ?? '';
    question.paperIds = shuffledGroup(question.id, [own, ...(similar.get(own) ?? [])]);
  }
}

/** A fixed order per question, so the seed paper is not always first (FNV-1a of id + paper). */
function shuffledGroup(questionId: string, ids: readonly string[]): string[] {
  const hash = (text: string): number => {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h;
  };
  return [...ids].sort((a, b) => hash(`${questionId}/${a}`) - hash(`${questionId}/${b}`));
}
