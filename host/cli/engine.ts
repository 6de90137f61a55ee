// The engine a CLI command works with: the workspace and everything composed over it, closed
// together when the command ends.
import { composeEngine, type Engine } from '../index.ts';
import { openWorkspace, type Workspace } from '../../app/store/index.ts';
import { inProcessLocalModels } from '../compose/local-models.ts';
import { workspaceOption, type GlobalOptions } from './options.ts';

export interface CliEngine extends Engine {
  workspace: Workspace;
  close(): Promise<void>;
}

export function openEngine(options: GlobalOptions): Promise<CliEngine> {
  const workspace = openWorkspace(workspaceOption(options));
  const engine = composeEngine({
    workspace,
    shell: 'serve',
    providers: { local: inProcessLocalModels() },
  });
  return Promise.resolve({
    ...engine,
    workspace,
    async close() {
      await engine.dispose();
      workspace.close();
    },
  });
}
