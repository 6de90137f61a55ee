// An error as the Papers view shows it: its name (the engine's named error classes travel intact)
// and its message, which says what to do next.

export interface Failure {
  name: string;
  message: string;
}

export function describeFailure(error: unknown): Failure {
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}
