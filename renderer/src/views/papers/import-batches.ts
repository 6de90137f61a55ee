// Splits dropped or picked files into batches for 'papers.importFiles', so that over the serve-mode
// WebSocket no frame carries more than about 12 MB of base64 (the server refuses frames over 16 MB).

/** The most base64 one 'papers.importFiles' request may carry over the WebSocket. */
export const maxBatchBase64Bytes = 12 * 1024 * 1024;

export function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/** A file too big to send over the WebSocket; the desktop app or the CLI reads it from disk. */
export class ImportFileTooLargeError extends Error {
  override readonly name = 'ImportFileTooLargeError';
  constructor(fileName: string, bytes: number, limitBytes: number) {
    const mb = (n: number) => (n / (1024 * 1024)).toFixed(1);
    super(
      `'${fileName}' is ${mb(bytes)} MB, more than a browser upload can carry ` +
        `(${mb((limitBytes * 3) / 4)} MB); add it from the desktop app or with \`rlm-studio ingest\``,
    );
  }
}

export interface ImportBatchPlan<T> {
  batches: T[][];
  /** Files that do not fit in a batch even alone. */
  tooLarge: T[];
}

/** Greedy, in the given order: a batch grows until the next file would push it over the limit. */
export function planImportBatches<T extends { size: number }>(
  files: readonly T[],
  limitBase64Bytes: number = maxBatchBase64Bytes,
): ImportBatchPlan<T> {
  const batches: T[][] = [];
  const tooLarge: T[] = [];
  let current: T[] = [];
  let currentBytes = 0;
  for (const file of files) {
    const bytes = base64Length(file.size);
    if (bytes > limitBase64Bytes) {
      tooLarge.push(file);
      continue;
    }
    if (current.length > 0 && currentBytes + bytes > limitBase64Bytes) {
      batches.push(current);
      current = [];
      currentBytes = 0;
    }
    current.push(file);
    currentBytes += bytes;
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}
