// How a command opens the workspace that --workspace (or $RLM_STUDIO_WORKSPACE, or the default)
// names, and closes it, with the paper library, on every path.
import type { Command } from 'commander';
import { PaperLibrary } from '../../app/papers/index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { workspaceOption, type GlobalOptions } from './options.ts';

export function commandWorkspace(command: Command): Workspace {
  return openWorkspace(workspaceOption(command.optsWithGlobals<GlobalOptions>()));
}

/** Runs `work` with the command's workspace and its paper library, then frees both. */
export async function withLibrary<T>(
  command: Command,
  work: (library: PaperLibrary, workspace: Workspace) => Promise<T> | T,
): Promise<T> {
  const workspace = commandWorkspace(command);
  const library = new PaperLibrary(workspace.db);
  try {
    return await work(library, workspace);
  } finally {
    await library.dispose();
    workspace.close();
  }
}
