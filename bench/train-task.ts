// The toy evidence task of `npm run bench:train`: paper sets of four short papers, one thing per
// sentence; each question names a thing in quotes and its answer is that thing's sentence, found
// through the REPL: FINAL(search(context, "thing", 1)) on one line. The SFT teacher traces and GRPO
// use one paper set; the held-out questions ask about the same things in papers never trained on
// (other sentences, in other places), the dev questions (for choosing settings) in a third set.
import type { EvidenceQuestion } from '../app/evidence/index.ts';

/** What the questions ask about: things from the stories the tiny model was trained on. */
export const storyThings = ['dog', 'bird', 'fish', 'tree', 'cake', 'duck', 'bear', 'boat'];
/** Sentences about other things, which no question asks about. */
const distractors =
  'box cup toy book doll kite bike bus moon rain snow park lake hill farm pie'.split(' ');
const qualities = ['red', 'blue', 'green', 'big', 'small', 'happy', 'sad', 'old', 'new', 'soft'];

export interface ToySet {
  /** Papers in the QASPER JSON layout the paper library imports. */
  papers: Record<string, unknown>;
  questions: EvidenceQuestion[];
}

/**
 * Four papers holding one sentence per thing (asked about) and per distractor (not), in an order
 * and with qualities drawn from `seed`: sets with different seeds ask the same questions about
 * different papers.
 */
export function toySet(
  set: string,
  things: readonly string[],
  seed: number,
  options: { distractors?: boolean } = {},
): ToySet {
  const random = xorshift(seed);
  const subjects = [...things, ...(options.distractors === false ? [] : distractors)];
  const lines = subjects.map(
    (thing) => `The ${thing} is ${qualities[random() % qualities.length] ?? ''}.`,
  );
  const all = lines.join(' ').toLowerCase();
  const repeated = subjects.filter((thing) => all.split(thing).length !== 2);
  if (repeated.length > 0) {
    throw new Error(`things in more than one sentence: ${repeated.join(', ')}`);
  }
  const order = lines.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = random() % (i + 1);
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  const perPaper = Math.ceil(lines.length / 4);
  const paperOf = new Map(order.map((line, at) => [line, Math.floor(at / perPaper)]));
  const papers: Record<string, unknown> = {};
  for (let p = 0; p < 4; p++) {
    const mine = order.slice(p * perPaper, (p + 1) * perPaper).map((i) => lines[i] ?? '');
    papers[`p${p}`] = {
      title: `Note ${p}`,
      abstract: '',
      full_text: [{ section_name: null, paragraphs: mine }],
    };
  }
  const questions = things.map((thing, i) => ({
    id: `${set}:${thing}`,
    question: `Which sentence mentions "${thing}"?`,
    set,
    paperIds: null,
    gold: [{ paperId: `p${paperOf.get(i) ?? 0}`, text: lines[i] ?? '' }],
    metadata: { thing },
  }));
  return { papers, questions };
}

function xorshift(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}

/**
 * What the scripted teacher writes: one FINAL line over a search (no code block). With the default
 * window the snippet is the whole short paper (span F1 about 0.3); with a window of 1 it is the
 * sentence itself (F1 1).
 */
export function teacherReply(question: EvidenceQuestion, narrow: boolean): string {
  const thing = String(question.metadata.thing);
  return narrow ? `FINAL(search(context, "${thing}", 1))` : `FINAL(search(context, "${thing}"))`;
}

/**
 * The teacher traces: per question one narrow search and two whole-paper ones, as a teacher whose
 * traces vary in quality; all pass the SFT filter (span F1 > 0). GRPO has to find that the narrow
 * one scores higher.
 */
export function teacherReplies(question: EvidenceQuestion): string[] {
  return [
    teacherReply(question, true),
    teacherReply(question, false),
    teacherReply(question, false),
  ];
}
