// SkyRL's RLM rows (RLM-SPEC section 4), read and written as JSON lines: the prompt (chat messages
// or a string), `reward_spec.evidence = [{paperId, selections: [{text}]}]`, `max_turns`, and the
// papers as a JSON string `extra_info.context_text` mapping paper id -> "### PAPER: <title>\n
// <abstract>\n...\n</abstract>\n<text>". Their papers become one set per dataset; a paper id used
// with two different texts is renamed in the later rows (`id~2`).
import { z } from 'zod';
import { describeZodIssue, parseJsonLines } from './json-lines.ts';
import { evidencePaper } from './paper-text.ts';
import type { EvidenceDataset, EvidencePaper, EvidenceQuestion } from './question.ts';

const Message = z.object({ role: z.string(), content: z.string() }).loose();

export const SkyrlRow = z
  .object({
    prompt: z.union([z.string().min(1), z.array(Message).min(1)]),
    env_class: z.string().optional(),
    reward_spec: z
      .object({
        evidence: z.array(
          z
            .object({
              paperId: z.string().min(1),
              selections: z.array(z.object({ text: z.string() }).loose()),
            })
            .loose(),
        ),
      })
      .loose(),
    max_turns: z.number().int().positive().optional(),
    extra_info: z.object({ context_text: z.string().min(2) }).loose(),
  })
  .loose();
export type SkyrlRow = z.infer<typeof SkyrlRow>;

const ContextText = z.record(z.string().min(1), z.string());

/** The question inside an instruction prompt ("... query: <q>\n..." or "... question: <q>\n..."). */
export function questionFromPrompt(prompt: string): string {
  const match = /(?:query|question):\s*([\s\S]+?)\s*(?:\n|$)/i.exec(prompt);
  return (match?.[1] ?? prompt).trim();
}

/** "### PAPER: <title>\n<abstract>\n...\n</abstract>\n<text>" -> its parts (lenient). */
export function splitSkyrlPaper(
  id: string,
  text: string,
): { title: string; abstract: string; fullText: string } {
  const header = /^### PAPER: ?(.*)\n?/.exec(text);
  if (!header) return { title: id, abstract: '', fullText: text };
  const rest = text.slice(header[0].length);
  const abstract = /^<abstract>\n?([\s\S]*?)\n?<\/abstract>\n?/.exec(rest);
  if (!abstract) return { title: header[1] ?? id, abstract: '', fullText: rest };
  return {
    title: header[1] ?? id,
    abstract: abstract[1] ?? '',
    fullText: rest.slice(abstract[0].length),
  };
}

export function skyrlPaperText(paper: EvidencePaper): string {
  const abstract = paper.abstract.length > 0 ? `<abstract>\n${paper.abstract}\n</abstract>\n` : '';
  return `### PAPER: ${paper.title}\n${abstract}${paper.fullText}`;
}

function promptText(prompt: SkyrlRow['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  const user = prompt.filter((message) => message.role === 'user').at(-1) ?? prompt.at(-1);
  return user?.content ?? '';
}

export function parseSkyrlDataset(name: string, text: string): EvidenceDataset {
  const { rows, issues } = parseJsonLines(text, SkyrlRow);
  const set = `skyrl-${name}`;
  const papers = new Map<string, EvidencePaper>();
  const questions: EvidenceQuestion[] = [];
  const ids = new Set<string>();
  for (const { line, value } of rows) {
    const contexts = readContexts(value.extra_info.context_text);
    if (typeof contexts === 'string') {
      issues.push({ line, reason: contexts });
      continue;
    }
    const rename = addPapers(papers, contexts);
    const unknown = value.reward_spec.evidence.find((entry) => !rename.has(entry.paperId));
    if (unknown) {
      issues.push({
        line,
        reason: `reward_spec.evidence names paper '${unknown.paperId}', which is not in extra_info.context_text`,
      });
      continue;
    }
    const extra = value.extra_info as Record<string, unknown>;
    const id = typeof extra.id === 'string' && extra.id.length > 0 ? extra.id : `line-${line}`;
    if (ids.has(id)) {
      issues.push({ line, id, reason: `duplicate id '${id}'` });
      continue;
    }
    ids.add(id);
    questions.push(rowQuestion(value, id, set, rename));
  }
  return {
    name,
    format: 'skyrl',
    questions,
    issues,
    papers: new Map([[set, papers]]),
    hasEvidenceF1: false,
  };
}

/** The row's papers (paper id -> text), or the reason they cannot be read. */
function readContexts(contextText: string): Record<string, string> | string {
  try {
    const parsed = ContextText.safeParse(JSON.parse(contextText));
    if (parsed.success) return parsed.data;
    return `extra_info.context_text: ${describeZodIssue(parsed.error)}`;
  } catch (error) {
    return `extra_info.context_text is not a JSON string (${error instanceof Error ? error.message : String(error)})`;
  }
}

/**
 * Adds a row's papers to the dataset's set; returns the id each got there (a paper id already
 * used with another text becomes `id~2`, `id~3`, ...).
 */
function addPapers(
  papers: Map<string, EvidencePaper>,
  contexts: Record<string, string>,
): Map<string, string> {
  const rename = new Map<string, string>();
  for (const [paperId, paperText] of Object.entries(contexts)) {
    const parts = splitSkyrlPaper(paperId, paperText);
    let id = paperId;
    for (let n = 2; ; n++) {
      const existing = papers.get(id);
      if (!existing) {
        papers.set(id, evidencePaper(id, parts.title, parts.abstract, parts.fullText));
        break;
      }
      if (
        existing.title === parts.title &&
        existing.abstract === parts.abstract &&
        existing.fullText === parts.fullText
      )
        break;
      id = `${paperId}~${n}`;
    }
    rename.set(paperId, id);
  }
  return rename;
}

function rowQuestion(
  value: SkyrlRow,
  id: string,
  set: string,
  rename: ReadonlyMap<string, string>,
): EvidenceQuestion {
  const extra = value.extra_info as Record<string, unknown>;
  const prompt = promptText(value.prompt);
  return {
    id,
    question:
      typeof extra.question === 'string' && extra.question.length > 0
        ? extra.question
        : questionFromPrompt(prompt),
    set,
    paperIds: [...rename.values()],
    gold: value.reward_spec.evidence.flatMap((entry) =>
      entry.selections
        .filter((selection) => selection.text.trim().length > 0)
        .map((selection) => ({
          paperId: rename.get(entry.paperId) ?? entry.paperId,
          text: selection.text,
        })),
    ),
    metadata: {
      prompt,
      ...(value.max_turns !== undefined ? { maxTurns: value.max_turns } : {}),
    },
  };
}

/** Our instruction around the question (own wording; the reader accepts the reference's too). */
export function skyrlPrompt(question: string): string {
  return (
    `Find the passages of the papers in the context that are evidence for this question: ${question}\n` +
    'Answer with a Python list of strings, each an exact substring of the context; no paraphrase, no commentary.'
  );
}

export function toSkyrlRow(
  question: EvidenceQuestion,
  papers: readonly EvidencePaper[],
  maxTurns = 10,
): SkyrlRow {
  const evidence = new Map<string, { text: string }[]>();
  for (const span of question.gold) {
    const paperId = span.paperId ?? papers[0]?.id ?? '';
    evidence.set(paperId, [...(evidence.get(paperId) ?? []), { text: span.text }]);
  }
  return {
    prompt: [{ role: 'user', content: skyrlPrompt(question.question) }],
    env_class: 'rlm',
    reward_spec: {
      ground_truth: null,
      evidence: [...evidence].map(([paperId, selections]) => ({ paperId, selections })),
    },
    max_turns: maxTurns,
    extra_info: {
      context_text: JSON.stringify(
        Object.fromEntries(papers.map((paper) => [paper.id, skyrlPaperText(paper)])),
      ),
      id: question.id,
      question: question.question,
    },
  };
}
