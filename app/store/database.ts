// Opens a workspace database with the settings every connection needs: WAL so readers never block
// the writer, NORMAL sync (a committed transaction survives the process being killed; see below),
// foreign keys on.
import { DatabaseSync } from 'node:sqlite';

export class WorkspaceDatabaseError extends Error {
  override readonly name = 'WorkspaceDatabaseError';
  constructor(path: string, cause: unknown) {
    super(
      `Cannot open the workspace database '${path}': ${cause instanceof Error ? cause.message : String(cause)}. ` +
        'Check that the folder is writable, or pass another one with --workspace DIR',
      { cause },
    );
  }
}

export function openDatabase(path: string): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path);
  } catch (error) {
    throw new WorkspaceDatabaseError(path, error);
  }
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    db.exec('PRAGMA journal_mode = WAL');
    // WAL + NORMAL: a commit survives the process being killed (it is in the WAL, handed to the
    // OS); only an OS crash or power loss can drop the last commits, never corrupt the file. FULL
    // synced on every commit and cost more than the runs it recorded with 512 agents.
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
  } catch (error) {
    db.close();
    throw new WorkspaceDatabaseError(path, error);
  }
  return db;
}

/** Runs `work` in one IMMEDIATE transaction: all of it is committed, or none of it. */
export function transaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

export function integrityCheck(db: DatabaseSync): string {
  const row = db.prepare('PRAGMA integrity_check').get() as { integrity_check: string } | undefined;
  return row?.integrity_check ?? 'no answer';
}
