// Named errors of the evidence task: each names the file or row and says what to do next.
export class DatasetFileError extends Error {
  override readonly name = 'DatasetFileError';
  constructor(path: string, reason: string) {
    super(`Cannot load the dataset '${path}': ${reason}`);
  }
}

export class UnknownDatasetFormatError extends Error {
  override readonly name = 'UnknownDatasetFormatError';
  constructor(format: string) {
    super(`Unknown dataset format '${format}'; use ours, skyrl or qasper`);
  }
}

export class PredictionFileError extends Error {
  override readonly name = 'PredictionFileError';
  constructor(path: string, reason: string) {
    super(
      `Cannot read the predictions '${path}': ${reason}. Write JSON lines {"id": ..., "spans": [{"paperId": ..., "text": ...}]}`,
    );
  }
}

export class DatasetPapersMissingError extends Error {
  override readonly name = 'DatasetPapersMissingError';
  constructor(set: string, missing: readonly string[]) {
    super(
      `The paper set '${set}' lacks ${missing.length} paper(s) the dataset names (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', ...' : ''}); ingest them with \`rlm-studio ingest FILES --set ${set}\``,
    );
  }
}

export class JudgeConfigError extends Error {
  override readonly name = 'JudgeConfigError';
}

export class DatasetPapersMismatchError extends Error {
  override readonly name = 'DatasetPapersMismatchError';
  constructor(set: string, paperId: string) {
    super(
      `The workspace set '${set}' holds a different text for paper '${paperId}' than the dataset; remove the set (rlm-studio papers) or evaluate in another workspace`,
    );
  }
}
