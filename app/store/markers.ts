// One-time workspace facts ("the sample set was offered"), kept in the settings table under a
// 'marker:' prefix that the settings schema ignores.
import type { DatabaseSync } from 'node:sqlite';

export function hasMarker(db: DatabaseSync, name: string): boolean {
  return db.prepare('SELECT 1 FROM settings WHERE key = ?').get(`marker:${name}`) !== undefined;
}

export function setMarker(db: DatabaseSync, name: string, now = Date.now()): void {
  db.prepare(
    `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET updated_at = excluded.updated_at`,
  ).run(`marker:${name}`, JSON.stringify(now), now);
}
