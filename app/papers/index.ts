// app/papers: PDFs and QASPER JSON -> paper sets in the workspace; their texts, highlight boxes
// and search. The REPL reads papers only through this folder.
export { PaperLibrary, type PaperText } from './library.ts';
export { contextText, contextPrefix, countWords, type PaperDocument } from './document.ts';
export * from './errors.ts';
export {
  parseQasper,
  qasperDocument,
  qasperLayout,
  QasperPaper,
  QASPER_CAPTION_PREFIX,
  QASPER_CAPTIONS_TITLE,
  type QasperUnit,
} from './qasper.ts';
export { type Fetch } from './arxiv.ts';
export {
  inputsFromPaths,
  fileInput,
  bytesInput,
  type IngestInput,
  type ProgressListener,
} from './ingest.ts';
export { ExtractionPool } from './extract/pool.ts';
export {
  defaultExtractEngine,
  extractEngines,
  type ExtractEngine,
  type PdfExtraction,
} from './extract/extraction.ts';
export { SetSearch } from './set-search.ts';
export { SetMaps, type SetMap, type MapRequestMethod } from './set-map.ts';
export * from './embed/index.ts';
