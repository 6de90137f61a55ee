// Wires the engine's services into command handlers. The composition roots (the CLI's serve
// command, Electron's main process) call this with what their shell can offer.
import { readFileSync } from 'node:fs';
import { type AppInfo, type CommandArgs, type CommandResponse } from '../api/index.ts';
import { PaperLibrary, SetSearch } from '../papers/index.ts';
import { schemaVersion, type Workspace } from '../store/index.ts';
import { paperHandlers } from './papers-handlers.ts';
import { createHost, type Host } from './host.ts';

export class NativeDialogUnavailableError extends Error {
  override readonly name = 'NativeDialogUnavailableError';
  constructor() {
    super(
      'Native file dialogs exist only in the desktop app; in the browser, drop files on the view or use its file picker',
    );
  }
}

export interface DialogService {
  openPaths(options: CommandArgs<'dialog.openPaths'>): Promise<CommandResponse<'dialog.openPaths'>>;
}

export interface EngineOptions {
  workspace: Workspace;
  shell: AppInfo['shell'];
  /** The workspace's papers; created here when the caller has none to share. */
  papers?: PaperLibrary;
  dialogs?: DialogService | undefined;
  now?: () => number;
}

export function appVersion(): string {
  const manifest = JSON.parse(
    readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
  ) as {
    version: string;
  };
  return manifest.version;
}

export function createEngineHost(options: EngineOptions): Host {
  const { workspace, shell, dialogs } = options;
  const now = options.now ?? Date.now;
  const version = appVersion();
  const papers = options.papers ?? new PaperLibrary(workspace.db);
  const search = new SetSearch(papers);
  const host: Host = createHost({
    ...paperHandlers(
      papers,
      search,
      (event) => {
        host.emit(event);
      },
      now,
    ),
    'app.info': () => ({
      name: 'RLM Studio',
      version,
      workspace: workspace.dir,
      shell,
      platform: process.platform,
      capabilities: { nativeDialogs: dialogs !== undefined },
      schemaVersion: schemaVersion(workspace.db),
    }),
    'app.ping': ({ message }) => ({ message, receivedAt: now() }),
    'settings.get': () => workspace.settings.get(),
    'settings.update': (patch) => {
      const settings = workspace.settings.update(patch);
      host.emit({ kind: 'settings.changed', at: now(), settings });
      return settings;
    },
    'dialog.openPaths': async (request) => {
      if (!dialogs) throw new NativeDialogUnavailableError();
      return dialogs.openPaths(request);
    },
  });
  return host;
}
