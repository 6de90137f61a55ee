// Reading a log's text: JSON lines one by one (a bad line is a RunLogLineError with its number,
// never the end of the import), or one JSON document (an object, or an array whose entries are
// read as lines: a DSPy dump written with json.dump, indented or not).
import { RunLogLineError } from './errors.ts';
import type { ParsedLine } from './types.ts';

/** Splits JSON lines; blank lines are ignored, unparsable ones are problems. */
export function parseJsonLines(
  text: string,
  file: string | null = null,
): { lines: ParsedLine[]; problems: RunLogLineError[] } {
  const lines: ParsedLine[] = [];
  const problems: RunLogLineError[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      lines.push({ line: index + 1, value: JSON.parse(raw) as unknown });
    } catch (error) {
      problems.push(
        new RunLogLineError(
          index + 1,
          `not JSON (${error instanceof Error ? error.message : String(error)})`,
          file,
        ),
      );
    }
  });
  return { lines, problems };
}

/**
 * A whole-file JSON document where the text is one (an array's entries numbered as lines), else
 * JSON lines. A JSON-lines file fails the whole-text parse at its first line's end: cheap.
 */
export function parseLogText(
  text: string,
  file: string | null = null,
): { lines: ParsedLine[]; problems: RunLogLineError[] } {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('[') || (trimmed.startsWith('{') && text.trimEnd().includes('\n'))) {
    try {
      const value: unknown = JSON.parse(text);
      const values: unknown[] = Array.isArray(value) ? value : [value];
      return { lines: values.map((entry, i) => ({ line: i + 1, value: entry })), problems: [] };
    } catch {
      // not one document: JSON lines
    }
  }
  return parseJsonLines(text, file);
}

/** The text of a file that may still be written: up to its last complete line. */
export function completeLines(text: string): string {
  return text.endsWith('\n') ? text : text.slice(0, text.lastIndexOf('\n') + 1);
}
