// Named errors of paper ingestion and access. Each says which input failed and what to do next;
// an ingestion error fails that one input while the rest of the set ingests.
export class PaperInputError extends Error {
  readonly input: string;
  constructor(input: string, message: string) {
    super(message);
    this.input = input;
  }
}

export class EmptyFileError extends PaperInputError {
  override readonly name = 'EmptyFileError';
  constructor(input: string) {
    super(input, `'${input}' is empty (0 bytes); re-download or re-export it`);
  }
}

export class NotAPdfError extends PaperInputError {
  override readonly name = 'NotAPdfError';
  constructor(input: string) {
    super(
      input,
      `'${input}' is not a PDF (no %PDF- header); import PDFs, QASPER JSON or arXiv ids`,
    );
  }
}

export class PdfTruncatedError extends PaperInputError {
  override readonly name = 'PdfTruncatedError';
  constructor(input: string) {
    super(
      input,
      `'${input}' is truncated (no end-of-file marker); the download or copy did not finish, fetch it again`,
    );
  }
}

export class PdfCorruptError extends PaperInputError {
  override readonly name = 'PdfCorruptError';
  constructor(input: string, detail: string) {
    super(
      input,
      `'${input}' is a damaged PDF that cannot be read (${detail}); re-download or re-export it`,
    );
  }
}

export class PdfEncryptedError extends PaperInputError {
  override readonly name = 'PdfEncryptedError';
  constructor(input: string) {
    super(
      input,
      `'${input}' is password-protected; remove the password (e.g. qpdf --decrypt) or skip it`,
    );
  }
}

export class PdfNoPagesError extends PaperInputError {
  override readonly name = 'PdfNoPagesError';
  constructor(input: string) {
    super(input, `'${input}' has no pages; check the file`);
  }
}

export class PdfNoTextLayerError extends PaperInputError {
  override readonly name = 'PdfNoTextLayerError';
  constructor(input: string, pages: number) {
    super(
      input,
      `'${input}' has no text layer (${pages} page(s) of images, probably a scan); RLM Studio reads parser text only, no OCR: run OCR first (e.g. ocrmypdf) or skip it`,
    );
  }
}

export class FileVanishedError extends PaperInputError {
  override readonly name = 'FileVanishedError';
  constructor(input: string) {
    super(
      input,
      `'${input}' disappeared during the import; check that nothing else moves or deletes it, then import it again`,
    );
  }
}

export class FileUnreadableError extends PaperInputError {
  override readonly name = 'FileUnreadableError';
  constructor(input: string, detail: string) {
    super(input, `'${input}' cannot be read (${detail})`);
  }
}

export class QasperFormatError extends PaperInputError {
  override readonly name = 'QasperFormatError';
  constructor(input: string, detail: string) {
    super(input, `QASPER entry '${input}' is malformed: ${detail}`);
  }
}

export class ArxivUnavailableError extends PaperInputError {
  override readonly name = 'ArxivUnavailableError';
  constructor(input: string, detail: string) {
    super(
      input,
      `Cannot download arXiv ${input}: arxiv.org is not reachable (${detail}); check the network, or download the PDF and import the file`,
    );
  }
}

export class ArxivNotFoundError extends PaperInputError {
  override readonly name = 'ArxivNotFoundError';
  constructor(input: string, status: number) {
    super(input, `arXiv has no paper ${input} (HTTP ${status}); check the id`);
  }
}

export class PaperSetNotFoundError extends Error {
  override readonly name = 'PaperSetNotFoundError';
  constructor(set: string) {
    super(
      `There is no paper set '${set}' in this workspace; list them with \`rlm-studio papers\` or import into it first`,
    );
  }
}

export class PaperNotFoundError extends Error {
  override readonly name = 'PaperNotFoundError';
  constructor(set: string, id: string) {
    super(
      `Paper set '${set}' has no paper '${id}'; list its ids with \`rlm-studio papers ${set}\``,
    );
  }
}

export class PaperHasNoPdfError extends Error {
  override readonly name = 'PaperHasNoPdfError';
  constructor(id: string) {
    super(`Paper '${id}' came from QASPER JSON and has no PDF; its text is all there is`);
  }
}

/** An input of an import that was canceled before it was read; nothing of it was written. */
export class ImportCanceledError extends PaperInputError {
  override readonly name = 'ImportCanceledError';
  constructor(input: string) {
    super(
      input,
      `'${input}' was not read: the import was canceled first; import it again to add it`,
    );
  }
}
