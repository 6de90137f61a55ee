// The trainer's input errors, in a file of their own so the loop's parts can share them without
// importing the loop.
export class TrainingInputError extends Error {
  override name = 'TrainingInputError';
}
