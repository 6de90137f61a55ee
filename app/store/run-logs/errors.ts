// Named errors of run-log import and export. A bad line never stops an import: it is reported
// with its line number and the rest of the file imports.

/** One line of a run log that could not be read; the import goes on without it. */
export class RunLogLineError extends Error {
  override readonly name = 'RunLogLineError';
  readonly line: number;
  constructor(line: number, reason: string) {
    super(`line ${line}: ${reason}; the line was skipped, the rest of the file imported`);
    this.line = line;
  }
}

export class UnknownRunLogFormatError extends Error {
  override readonly name = 'UnknownRunLogFormatError';
  constructor(source: string, detail: string) {
    super(
      `${source} is not a run log this app reads (${detail}); expected an RLM Studio export, an alexzhang13/rlm log or a SkyRL eval dump, or pass --format`,
    );
  }
}

export class EmptyRunLogError extends Error {
  override readonly name = 'EmptyRunLogError';
  constructor(source: string) {
    super(`${source} holds no runs: it is empty or every line failed to parse`);
  }
}
