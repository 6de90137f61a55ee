// The desktop shell's command line: `--workspace DIR` (or `--workspace=DIR`) picks the workspace,
// and Open Workspace… relaunches with it replaced, so the engine never swaps stores mid-flight.
const flag = '--workspace';

export class WorkspaceArgumentError extends Error {
  override readonly name = 'WorkspaceArgumentError';
  constructor() {
    super(
      `${flag} needs a directory: start RLM Studio with ${flag} DIR, or leave it out for the default`,
    );
  }
}

/** The workspace directory named on the command line, or undefined for the default. */
export function workspaceFromArgv(argv: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === flag) {
      const value = argv[i + 1];
      if (value === undefined || value === '' || value.startsWith('--'))
        throw new WorkspaceArgumentError();
      found = value;
      i++;
    } else if (arg?.startsWith(`${flag}=`)) {
      const value = arg.slice(flag.length + 1);
      if (value === '') throw new WorkspaceArgumentError();
      found = value;
    }
  }
  return found;
}

/** Arguments for app.relaunch: the current ones (minus the executable) with the workspace replaced. */
export function relaunchArgs(argv: readonly string[], workspace: string): string[] {
  const kept: string[] = [];
  const rest = argv.slice(1);
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    if (arg === flag) {
      i++;
      continue;
    }
    if (arg.startsWith(`${flag}=`)) continue;
    kept.push(arg);
  }
  return [...kept, flag, workspace];
}
