// What a PDF reader returns, whichever engine reads it (PDFium or pdf.js): text items with their
// boxes in page coordinates (top-left origin, y down, scale 1), an open document read in ranges of
// pages, and why a document could not be read. Pure: importing it loads no engine.

export interface RawItem {
  str: string;
  /** Left, top, width and height of the item's box on its page. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Font size in page units (the box height of horizontal text). */
  size: number;
  /** The engine's font id where it gives one (pdf.js: items of one run share it), else ''. */
  font: string;
  /** The item ends a line (the engine's own judgement). */
  eol: boolean;
  /** Text not written left to right (rotated margin stamps, vertical labels). */
  rotated: boolean;
  /** A space comes before it in the text, whatever the gap (PDFium's word runs say so). */
  spaceBefore?: boolean;
}

export interface RawPage {
  width: number;
  height: number;
  items: RawItem[];
}

export interface RawPdf {
  pages: RawPage[];
  info: { title?: string; author?: string };
}

/** Why a reader could not read a document; mapped to named errors by the caller. */
export type PdfReadFailure = 'password' | 'invalid' | 'no-pages' | 'unreadable-page';

export class PdfReadError extends Error {
  override readonly name = 'PdfReadError';
  readonly reason: PdfReadFailure;
  constructor(reason: PdfReadFailure, detail: string) {
    super(detail);
    this.reason = reason;
  }
}

/** An open document; pages are read in ranges so several workers can share a long paper. */
export interface OpenPdf {
  numPages: number;
  info: RawPdf['info'];
  /** Pages from..to, 1-based and inclusive. */
  readPages(from: number, to: number): Promise<RawPage[]>;
  close(): Promise<void>;
}
