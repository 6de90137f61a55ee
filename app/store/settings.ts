// Workspace settings: one row per key, each value JSON, the whole validated by app/api's schema so
// a hand-edited or older row falls back to its default instead of breaking the app.
import type { DatabaseSync } from 'node:sqlite';
import { Settings } from '../api/index.ts';
import { transaction } from './database.ts';

export const defaultSettings: Settings = { theme: 'system', embeddingModel: null };

export class SettingsStore {
  readonly #db: DatabaseSync;
  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get(): Settings {
    const rows = this.#db.prepare('SELECT key, value FROM settings').all() as {
      key: string;
      value: string;
    }[];
    const merged: Record<string, unknown> = { ...defaultSettings };
    for (const row of rows) {
      if (!(row.key in defaultSettings)) continue;
      try {
        merged[row.key] = JSON.parse(row.value) as unknown;
      } catch {
        // A corrupt value keeps its default; the next update overwrites it.
      }
    }
    const parsed = Settings.safeParse(merged);
    if (parsed.success) return parsed.data;
    const repaired: Record<string, unknown> = { ...merged };
    for (const issue of parsed.error.issues) {
      const key = issue.path[0];
      if (typeof key === 'string' && key in defaultSettings) {
        repaired[key] = defaultSettings[key as keyof Settings];
      }
    }
    return Settings.parse(repaired);
  }

  update(patch: Partial<Settings>): Settings {
    const next = Settings.parse({ ...this.get(), ...patch });
    const upsert = this.#db.prepare(
      `INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    transaction(this.#db, () => {
      for (const [key, value] of Object.entries(patch)) {
        upsert.run(key, JSON.stringify(value), Date.now());
      }
    });
    return next;
  }
}
