// Named errors of run-log import and export. A bad line never stops an import: it is reported
// with its line number and the rest of the file imports.

/** One line of a run log that could not be read; the import goes on without it. */
export class RunLogLineError extends Error {
  override readonly name = 'RunLogLineError';
  readonly line: number;
  /** The file within a log folder (a nano-rlm session's messages.jsonl), where there is one. */
  readonly file: string | null;
  constructor(line: number, reason: string, file: string | null = null) {
    super(
      `${file ? `${file} ` : ''}line ${line}: ${reason}; the line was skipped, the rest of the ${file ? 'folder' : 'file'} imported`,
    );
    this.line = line;
    this.file = file;
  }
}

export class UnknownRunLogFormatError extends Error {
  override readonly name = 'UnknownRunLogFormatError';
  constructor(source: string, detail: string) {
    super(
      `${source} is not a run log this app reads (${detail}); expected an RLM Studio export, an alexzhang13/rlm log, a SkyRL eval dump, a DSPy RLM prediction or a nano-rlm session folder, or pass --format`,
    );
  }
}

export class EmptyRunLogError extends Error {
  override readonly name = 'EmptyRunLogError';
  constructor(source: string) {
    super(`${source} holds no runs: it is empty or every line failed to parse`);
  }
}

/** A path to import or follow that is missing or holds no log. */
export class RunLogPathError extends Error {
  override readonly name = 'RunLogPathError';
  constructor(path: string, reason: string) {
    super(`'${path}': ${reason}`);
  }
}
