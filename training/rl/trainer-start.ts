// What the host hands a trainer process when it starts it, on the child's stdin (never in job.json,
// never in its environment): what the trainer cannot read itself. A judge naming a saved endpoint
// (Settings > Models) has its key in the app's vault, which under the desktop shell is the OS
// keychain (safeStorage), readable only by the app's own process; the host resolves the endpoint
// to its spec and key. Kept apart from training-handlers.ts so the trainer imports only this.
import { z } from 'zod';

export const TrainerStart = z.strictObject({
  /** The job's judge when it names a saved endpoint: that endpoint's own spec and stored key. */
  judge: z.strictObject({ spec: z.string().min(1), apiKey: z.string().optional() }).optional(),
});
export type TrainerStart = z.infer<typeof TrainerStart>;

export class TrainerStartError extends Error {
  override readonly name = 'TrainerStartError';
  constructor(detail: string) {
    super(`the start message from the app on stdin is not valid: ${detail}`);
  }
}

/** Parses the one JSON object the host writes to the trainer's stdin. */
export function parseTrainerStart(text: string): TrainerStart {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new TrainerStartError('it is not JSON');
  }
  const parsed = TrainerStart.safeParse(value);
  if (!parsed.success) {
    throw new TrainerStartError(parsed.error.issues.map((issue) => issue.message).join('; '));
  }
  return parsed.data;
}
