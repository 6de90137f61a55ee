// Options every subcommand shares.
import { defaultWorkspaceDir } from '../../app/store/index.ts';

export interface GlobalOptions {
  workspace?: string;
}

export function workspaceOption(options: GlobalOptions): string {
  return options.workspace ?? process.env.RLM_STUDIO_WORKSPACE ?? defaultWorkspaceDir();
}
