// JSON lines with a zod schema per row: a bad row becomes a RowIssue (line number and reason)
// while the others still load. Blank lines are skipped; line numbers are 1-based.
import type { z } from 'zod';
import type { RowIssue } from './question.ts';

export interface ParsedLine<T> {
  line: number;
  value: T;
}

/** "field 'gold.0.text': expected string, received number" from a zod error. */
export function describeZodIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid row';
  const path = issue.path.map(String).join('.');
  return path.length > 0 ? `field '${path}': ${issue.message}` : issue.message;
}

export function parseJsonLines<S extends z.ZodType>(
  text: string,
  schema: S,
): { rows: ParsedLine<z.output<S>>[]; issues: RowIssue[] } {
  const rows: ParsedLine<z.output<S>>[] = [];
  const issues: RowIssue[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim().length === 0) return;
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (error) {
      issues.push({
        line,
        reason: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      });
      return;
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const id =
        typeof json === 'object' && json !== null && 'id' in json && typeof json.id === 'string'
          ? json.id
          : undefined;
      issues.push({
        line,
        ...(id !== undefined ? { id } : {}),
        reason: describeZodIssue(parsed.error),
      });
      return;
    }
    rows.push({ line, value: parsed.data });
  });
  return { rows, issues };
}

/** Duplicate ids after the first are issues too: results are keyed by question id. */
export function dropDuplicateIds<T extends { id: string }>(
  rows: readonly ParsedLine<T>[],
  issues: RowIssue[],
): ParsedLine<T>[] {
  const seen = new Map<string, number>();
  return rows.filter((row) => {
    const first = seen.get(row.value.id);
    if (first !== undefined) {
      issues.push({
        line: row.line,
        id: row.value.id,
        reason: `duplicate id '${row.value.id}' (first on line ${first})`,
      });
      return false;
    }
    seen.set(row.value.id, row.line);
    return true;
  });
}
