// A workspace is one directory holding one SQLite database (and, later, caches beside it). The
// default lives in the user's data directory; --workspace DIR overrides it.
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { integrityCheck, openDatabase } from './database.ts';
import { migrate, schemaVersion } from './migrations.ts';
import { SettingsStore } from './settings.ts';

export const databaseFileName = 'rlm-studio.sqlite';

export interface PlatformContext {
  platform: NodeJS.Platform;
  env: Record<string, string | undefined>;
  home: string;
}

/** Where a workspace lives when the user names none (XDG on Linux, the platform's usual elsewhere). */
export function defaultWorkspaceDir(
  context: PlatformContext = { platform: process.platform, env: process.env, home: homedir() },
): string {
  const { platform, env, home } = context;
  if (platform === 'win32') {
    return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'RLM Studio', 'workspace');
  }
  if (platform === 'darwin') {
    return join(home, 'Library', 'Application Support', 'RLM Studio', 'workspace');
  }
  const dataHome =
    env.XDG_DATA_HOME && env.XDG_DATA_HOME.length > 0
      ? env.XDG_DATA_HOME
      : join(home, '.local', 'share');
  return join(dataHome, 'rlm-studio', 'workspace');
}

export class WorkspaceCorruptError extends Error {
  override readonly name = 'WorkspaceCorruptError';
  constructor(path: string, detail: string) {
    super(
      `The workspace database '${path}' failed its integrity check (${detail}); restore it from a backup or open another workspace with --workspace DIR`,
    );
  }
}

/** The full integrity check; throws WorkspaceCorruptError with SQLite's findings. */
export function checkWorkspace(workspace: { db: DatabaseSync; databasePath: string }): void {
  const check = integrityCheck(workspace.db);
  if (check !== 'ok') throw new WorkspaceCorruptError(workspace.databasePath, check);
}

export interface Workspace {
  readonly dir: string;
  readonly databasePath: string;
  readonly db: DatabaseSync;
  readonly settings: SettingsStore;
  schemaVersion(): number;
  close(): void;
}

export function openWorkspace(dir: string = defaultWorkspaceDir()): Workspace {
  const absolute = resolve(dir);
  mkdirSync(absolute, { recursive: true });
  const databasePath = join(absolute, databaseFileName);
  const db = openDatabase(databasePath);
  try {
    // No integrity check here: it reads the whole file (slow on a big workspace). SQLite reports
    // corruption on access; `checkWorkspace()` runs the full check on demand.
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  let open = true;
  return {
    dir: absolute,
    databasePath,
    db,
    settings: new SettingsStore(db),
    schemaVersion: () => schemaVersion(db),
    close() {
      if (!open) return;
      open = false;
      db.close();
    },
  };
}
