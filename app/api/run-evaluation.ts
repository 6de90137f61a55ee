// What an eval recorded about one run (gold spans, scores): its own file because it joins the runs
// and evals halves of the contract, which import each other's building blocks in one direction only.
import { z } from 'zod';
import { EvalResult } from './evals.ts';

export const runEvaluationCommands = {
  'runs.evaluation': {
    summary:
      "The newest eval result recorded for a run: gold spans (located in the papers), the run's spans and its scores; null when no eval scored it.",
    request: z.object({ runId: z.string() }).strict(),
    response: z.object({ result: EvalResult.nullable() }),
  },
} as const;
