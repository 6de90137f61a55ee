// Entry point of `rlm-studio` (bin/rlm-studio.js imports it). Errors end the process with their
// name and message, never a stack trace the user has to read.
import { buildProgram } from './program.ts';

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  console.error(`rlm-studio: ${name}: ${message}`);
  process.exitCode = 1;
}
