// `npm run lint`: ESLint and Prettier's check side by side, one process each. Formatting is Prettier's
// own check (as Prettier advises) rather than an ESLint rule: inside ESLint it was ~20% of a cold
// lint on one thread, beside it it takes the second core. Each tool's output is printed whole when
// it ends (not interleaved); the exit code is non-zero when either finds a problem or fails to run.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Check {
  name: string;
  command: string;
  args: string[];
}

export interface CheckResult {
  name: string;
  /** The exit code; null when it was killed by a signal or could not start. */
  code: number | null;
  output: string;
  ms: number;
}

const bin = (name: string) =>
  fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

export const lintChecks: Check[] = [
  {
    name: 'eslint',
    command: bin('eslint'),
    args: [
      '--cache',
      '--cache-location',
      'node_modules/.cache/eslint/',
      '--max-warnings',
      '0',
      '.',
    ],
  },
  { name: 'prettier', command: bin('prettier'), args: ['--check', '--cache', '.'] },
];

/** Runs one check to its end, its stdout and stderr kept together in order. */
export function runCheck(check: Check, cwd: string): Promise<CheckResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(check.command, check.args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
    child.on('error', (error) => {
      output += `${check.name} could not start: ${error.message}\n`;
    });
    child.on('close', (code) => {
      resolve({ name: check.name, code, output, ms: performance.now() - started });
    });
  });
}

/** Runs the checks at once; each one's output is written as soon as it ends. */
export async function runChecks(
  checks: Check[],
  cwd: string,
  write: (text: string) => void,
): Promise<CheckResult[]> {
  return Promise.all(
    checks.map(async (check) => {
      const result = await runCheck(check, cwd);
      const outcome = result.code === 0 ? 'passed' : `FAILED (exit ${String(result.code)})`;
      write(`${result.output}${result.output.endsWith('\n') || !result.output ? '' : '\n'}`);
      write(`== ${check.name} ${outcome} in ${(result.ms / 1000).toFixed(1)} s\n`);
      return result;
    }),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const results = await runChecks(lintChecks, root, (text) => process.stdout.write(text));
  const failed = results.filter((result) => result.code !== 0).map((result) => result.name);
  if (failed.length > 0) {
    console.error(`lint failed: ${failed.join(' and ')}`);
    process.exitCode = 1;
  }
}
