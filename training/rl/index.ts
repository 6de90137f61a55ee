// training/rl: GRPO with advantage inheritance for recursive agents, the PPO loss and the SFT
// cold start's data, built on app/'s run logs. Its only public face.
export {
  groupAdvantages,
  groupStats,
  RolloutGroupError,
  weightedSamples,
  type AdvantageOptions,
  type GroupStats,
  type ChildWeighting,
  type Rollout,
  type RolloutNode,
  type WeightedSample,
} from './advantages.ts';
export {
  LossInputError,
  nllLoss,
  ppoLoss,
  type LossSample,
  type PpoLoss,
  type PpoOptions,
  type TokenLogProbs,
} from './ppo-loss.ts';
export {
  rolloutTree,
  sftRejection,
  stepSamples,
  TrajectoryError,
  type ChatMessage,
  type StepSample,
} from './trajectory.ts';
export type { OptimizerStep, ScoredTurns, TokenizedTurn, TrainablePolicy } from './policy.ts';
export {
  grpoStep,
  mixSeed,
  type GrpoDeps,
  type RewardOutcome,
  type RolloutOutcome,
  type RolloutRequest,
  type StepFigures,
  type StepResult,
} from './grpo-step.ts';
export { rolloutTrainings, type StepRollouts } from './rollout-training.ts';
export {
  responseLengths,
  rewardSpread,
  tokenShares,
  type ResponseLengths,
  type RewardSpread,
  type SampledTurn,
  type TokenShares,
} from './step-figures.ts';
export {
  holdOut,
  passAtK,
  validate,
  validatesAt,
  type ValidationConfig,
  type ValidationFigures,
} from './validation.ts';
export { JobFiles, TrainingJobError } from './job-files.ts';
export {
  batchFor,
  runGrpoJob,
  TrainingInputError,
  type TrainJobOptions,
  type TrainJobResult,
} from './trainer.ts';
export {
  runSftJob,
  selectSftTurns,
  sftStepLine,
  type SftJobOptions,
  type SftSelection,
  type TeacherRun,
} from './sft.ts';
export { finalAnswer, rlmEnvironment, type RlmEnvironmentOptions } from './rlm-rollouts.ts';
export {
  judgeProvider,
  runLocalJob,
  type LocalJobOptions,
  type OpenRolloutEngine,
  type RolloutEngine,
} from './local-job.ts';
export { parseTrainerStart, TrainerStart, TrainerStartError } from './trainer-start.ts';
export {
  TablePolicy,
  TOY_MODEL,
  toyEnvironment,
  toyQuestions,
  toyValidationQuestions,
} from './toy-task.ts';
export { runToyJob, toyRunId, type ToyJobOptions } from './toy-job.ts';
