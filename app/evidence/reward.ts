// The reward of one finished rollout (RLM-SPEC section 4): with a judge, the rubric reward
// (P/10 + R/10)/2, the one training uses; without one, the character-span F1. No answer (out of
// turns, a failed run) is 0 without asking the judge. Span figures are returned either way, for logs.
import type { JudgeVerdict, RubricJudge } from './judge.ts';
import type { LocateOptions } from './locate.ts';
import { answerSpans } from './predictions.ts';
import type { EvidencePaper, EvidenceQuestion } from './question.ts';
import { scoreQuestion, type QuestionScore } from './score.ts';

export interface EvidenceReward {
  reward: number;
  source: 'rubric' | 'span-f1' | 'no-answer';
  spanF1: number | null;
  verdict: JudgeVerdict | null;
  score: QuestionScore;
}

export async function evidenceReward(
  question: EvidenceQuestion,
  /** The run's final answer (null when it ended without one). */
  answer: unknown,
  papers: readonly EvidencePaper[],
  options: { judge?: RubricJudge | undefined; locate?: LocateOptions; signal?: AbortSignal } = {},
): Promise<EvidenceReward> {
  const spans = answerSpans(answer);
  const score = scoreQuestion(question, spans, {
    papers,
    ...(options.locate ? { locate: options.locate } : {}),
  });
  const spanF1 = score.span?.f1 ?? null;
  if (answer === null || answer === undefined)
    return { reward: 0, source: 'no-answer', spanF1, verdict: null, score };
  if (!options.judge)
    return { reward: spanF1 ?? 0, source: 'span-f1', spanF1, verdict: null, score };
  const verdict = await options.judge.judge(
    {
      question: question.question,
      gold: question.gold.map((span) => span.text),
      predicted: spans.map((span) => span.text),
    },
    options.signal,
  );
  return { reward: verdict.reward, source: 'rubric', spanF1, verdict, score };
}
