import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { migrate, migrations, schemaVersion, type Migration } from './migrations.ts';
import { databaseFileName, defaultWorkspaceDir, openWorkspace } from './workspace.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rlm-ws-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('workspace', () => {
  it('creates the directory and database, in WAL mode, at the newest schema', () => {
    const workspace = openWorkspace(join(dir, 'nested', 'ws'));
    const mode = workspace.db.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
    expect(mode.journal_mode).toBe('wal');
    expect(workspace.schemaVersion()).toBe(migrations.at(-1)?.version);
    expect(workspace.databasePath).toBe(join(dir, 'nested', 'ws', databaseFileName));
    workspace.close();
    workspace.close();
  });

  it('keeps settings across reopening and repairs a corrupt value', () => {
    const first = openWorkspace(dir);
    expect(first.settings.get()).toEqual({ theme: 'system', embeddingModel: null });
    first.settings.update({ theme: 'dark' });
    first.close();
    const second = openWorkspace(dir);
    expect(second.settings.get()).toEqual({ theme: 'dark', embeddingModel: null });
    second.db.prepare("UPDATE settings SET value = '\"neon\"' WHERE key = 'theme'").run();
    expect(second.settings.get()).toEqual({ theme: 'system', embeddingModel: null });
    second.db.prepare("UPDATE settings SET value = '{not json' WHERE key = 'theme'").run();
    expect(second.settings.get()).toEqual({ theme: 'system', embeddingModel: null });
    second.close();
  });

  it('puts the default workspace where each platform keeps user data', () => {
    expect(defaultWorkspaceDir({ platform: 'linux', env: {}, home: '/home/ada' })).toBe(
      '/home/ada/.local/share/rlm-studio/workspace',
    );
    expect(
      defaultWorkspaceDir({
        platform: 'linux',
        env: { XDG_DATA_HOME: '/data' },
        home: '/home/ada',
      }),
    ).toBe('/data/rlm-studio/workspace');
    expect(defaultWorkspaceDir({ platform: 'darwin', env: {}, home: '/Users/ada' })).toBe(
      '/Users/ada/Library/Application Support/RLM Studio/workspace',
    );
    expect(
      defaultWorkspaceDir({
        platform: 'win32',
        env: { APPDATA: 'C:/Users/ada/AppData/Roaming' },
        home: 'C:/Users/ada',
      }),
    ).toBe(join('C:/Users/ada/AppData/Roaming', 'RLM Studio', 'workspace'));
  });
});

describe('migrations', () => {
  const steps: Migration[] = [
    { version: 1, name: 'a', sql: 'CREATE TABLE a (x INTEGER) STRICT' },
    { version: 2, name: 'b', sql: 'CREATE TABLE b (y INTEGER) STRICT' },
  ];

  it('applies each migration once and records it', () => {
    const db = openDatabase(join(dir, 'm.sqlite'));
    expect(migrate(db, steps.slice(0, 1))).toEqual([1]);
    expect(migrate(db, steps)).toEqual([2]);
    expect(migrate(db, steps)).toEqual([]);
    const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    expect(rows).toEqual([
      { version: 1, name: 'a' },
      { version: 2, name: 'b' },
    ]);
    db.close();
  });

  it('applies a lower version that landed after a higher one was applied', () => {
    const db = openDatabase(join(dir, 'gap.sqlite'));
    const [a, b] = steps;
    if (!a || !b) throw new Error('no steps');
    const c: Migration = { version: 3, name: 'c', sql: 'CREATE TABLE c (z INTEGER) STRICT' };
    expect(migrate(db, [a, c])).toEqual([1, 3]);
    expect(migrate(db, [a, b, c])).toEqual([2]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").all()).toHaveLength(1);
    db.close();
  });

  it('rolls back a failing migration entirely', () => {
    const db = openDatabase(join(dir, 'm.sqlite'));
    const broken: Migration[] = [
      ...steps.slice(0, 1),
      {
        version: 2,
        name: 'broken',
        sql: 'CREATE TABLE c (z INTEGER); CREATE TABLE c (z INTEGER);',
      },
    ];
    expect(() => migrate(db, broken)).toThrow(/already exists/);
    expect(schemaVersion(db)).toBe(1);
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE name = 'c'").all();
    expect(tables).toEqual([]);
    db.close();
  });

  it('refuses a workspace written by a newer version', () => {
    const path = join(dir, databaseFileName);
    const db = new DatabaseSync(path);
    db.exec(
      'CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT',
    );
    db.exec("INSERT INTO schema_migrations VALUES (99, 'future', 0)");
    db.close();
    expect(() => openWorkspace(dir)).toThrow(/WorkspaceTooNewError|newer RLM Studio/);
  });
});
