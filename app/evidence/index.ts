// app/evidence: the evidence-selection task (RLM-SPEC section 4): datasets (ours, SkyRL, QASPER),
// span location, character-span F1, QASPER Evidence-F1, the rubric judge and batch evaluation.
export * from './question.ts';
export * from './errors.ts';
export { parseJsonLines, describeZodIssue } from './json-lines.ts';
export { parseOurDataset, toOurRow, OurRow } from './studio-dataset.ts';
export {
  parseSkyrlDataset,
  toSkyrlRow,
  skyrlPrompt,
  skyrlPaperText,
  splitSkyrlPaper,
  questionFromPrompt,
  SkyrlRow,
} from './skyrl-dataset.ts';
export { parseQasperDataset, qasperJson, type QasperOptions } from './qasper-dataset.ts';
export { mostSimilarByVectors, mostSimilarPapers } from './similar-papers.ts';
export { readTar, TarFormatError } from './tar-archive.ts';
export { evidencePaper } from './paper-text.ts';
export {
  PaperIndex,
  locateSpan,
  cleanSpan,
  DEFAULT_THRESHOLD,
  type LocateMethod,
  type LocateOptions,
  type SpanLocation,
} from './locate.ts';
export {
  mergeIntervals,
  unionSize,
  intersectionSize,
  scoreSpans,
  spanScore,
  type Interval,
  type SpanScore,
} from './span-f1.ts';
export { paragraphF1, questionEvidenceF1, meanEvidenceF1, evidenceStrings } from './evidence-f1.ts';
export {
  scoreQuestion,
  scoreDataset,
  summariseScores,
  type QuestionScore,
  type DatasetScore,
  type LocatedSpanReport,
} from './score.ts';
export { parsePredictions, answerSpans, PredictionRow } from './predictions.ts';
export { loadDataset, paperLookup, isDatasetFormat } from './load.ts';
export { materialiseDatasetPapers } from './materialise.ts';
export {
  RubricJudge,
  parseJudgeReply,
  judgePrompt,
  rubricReward,
  MalformedJudgeReplyError,
  JUDGE_AGENT_ID,
  JUDGE_TEMPLATE,
  type JudgeInput,
  type JudgeOptions,
  type JudgeVerdict,
} from './judge.ts';
export { evalReport, percentile } from './eval-report.ts';
export {
  EvalService,
  EvalAlreadyRunningError,
  evalId,
  type EvalDependencies,
  type EvalEvent,
  type StartedEval,
} from './batch-eval.ts';
export { evidenceReward, type EvidenceReward } from './reward.ts';
export {
  generateDataset,
  generateGroup,
  prepareGeneration,
  groupPapers,
  parseTeacherReply,
  questionOverlap,
  splitOf,
  MalformedTeacherReplyError,
  GenerationInputError,
  GENERATION_TEMPLATE,
  GENERATION_AGENT_ID,
  type GenerationProgress,
  type PaperGroup,
} from './dataset-generation.ts';
export { importDataset, exportDataset, type ImportReport } from './dataset-files.ts';
