// The papers part of the contract: paper sets, ingestion, text, highlight boxes, search, the map.
// Offsets are UTF-16 code-unit offsets into a paper's `fullText` unless a field says `context`.
import { z } from 'zod';

export const SetName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[\w.\- ]+$/, 'letters, digits, spaces, dot, dash and underscore only');

export const PaperSource = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('pdf'),
    fileName: z.string(),
    sha256: z.string(),
    bytes: z.number().int(),
  }),
  z.object({ kind: z.literal('qasper'), qasperId: z.string() }),
]);

export const Section = z.object({
  title: z.string(),
  /** 1 for "3 Method", 2 for "3.1 Data"; unnumbered headings are 1. */
  level: z.number().int().min(1),
  numbered: z.boolean(),
  references: z.boolean(),
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});
export type Section = z.infer<typeof Section>;

/** What read a paper's text: PDFium (ingestion), pdf.js (workspaces from before), QASPER's JSON. */
export const PaperEngine = z.enum(['pdfium', 'pdf.js', 'qasper']);
export type PaperEngine = z.infer<typeof PaperEngine>;

export const PaperSummary = z.object({
  id: z.string(),
  title: z.string(),
  authors: z.array(z.string()),
  pages: z.number().int().nonnegative(),
  words: z.number().int().nonnegative(),
  sections: z.number().int().nonnegative(),
  hasPdf: z.boolean(),
  engine: PaperEngine,
  source: PaperSource,
  addedAt: z.number(),
});
export type PaperSummary = z.infer<typeof PaperSummary>;

export const PaperDetail = PaperSummary.extend({
  abstract: z.string(),
  fullText: z.string(),
  /** What the REPL sees: `### PAPER: <title>`, the abstract, then the full text. */
  contextText: z.string(),
  /** contextText.slice(contextOffset) === fullText. */
  contextOffset: z.number().int().nonnegative(),
  sectionList: z.array(Section),
  /** Where each page starts in fullText (pages[i] starts at pageStarts[i]). */
  pageStarts: z.array(z.number().int().nonnegative()),
});
export type PaperDetail = z.infer<typeof PaperDetail>;

export const IngestFailure = z.object({ name: z.string(), message: z.string() });

export const IngestResult = z.object({
  /** The file name, QASPER id or arXiv id this result is about. */
  input: z.string(),
  outcome: z.enum(['added', 'duplicate', 'failed']),
  paperId: z.string().optional(),
  error: IngestFailure.optional(),
});
export type IngestResult = z.infer<typeof IngestResult>;

/** A paper read again from its stored PDF (papers.reextract). */
export const ReextractResult = z.object({
  paperId: z.string(),
  outcome: z.enum(['reextracted', 'failed']),
  engine: z.enum(['pdfium', 'pdf.js']),
  /** The sets whose copy of the paper changed (a document is shared by content). */
  sets: z.array(z.string()),
  error: IngestFailure.optional(),
});
export type ReextractResult = z.infer<typeof ReextractResult>;

export const PaperSetSummary = z.object({
  name: z.string(),
  papers: z.number().int(),
  pages: z.number().int(),
  words: z.number().int(),
  failures: z.number().int(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type PaperSetSummary = z.infer<typeof PaperSetSummary>;

export const HighlightBox = z.object({
  /** 0-based page index. */
  page: z.number().int().nonnegative(),
  /** PDF user-space units, origin at the page's top-left corner, y downwards. */
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type HighlightBox = z.infer<typeof HighlightBox>;

export const KeywordSnippet = z.object({
  start: z.number().int(),
  end: z.number().int(),
  text: z.string(),
});

export const RankedHit = z.object({
  paperId: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  score: z.number(),
  snippet: z.string(),
  section: z.string().optional(),
});
export type RankedHit = z.infer<typeof RankedHit>;

export const MapPoint = z.object({
  paperId: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  x: z.number(),
  y: z.number(),
  preview: z.string(),
});
export type MapPoint = z.infer<typeof MapPoint>;

export const MapMethod = z.enum(['tfidf-pca', 'embeddings-pca']);
export type MapMethod = z.infer<typeof MapMethod>;

export const PassageMap = z.object({
  method: MapMethod,
  /** The embedding model's name when `method` is `embeddings-pca`. */
  model: z.string().optional(),
  /** The model folder's name set in Settings, null when none (the view offers the switch then). */
  embeddingModel: z.string().nullable(),
  /** Why embeddings were asked for and TF-IDF drew the map instead (a named error). */
  fallback: z.object({ name: z.string(), message: z.string() }).optional(),
  points: z.array(MapPoint),
});
export type PassageMap = z.infer<typeof PassageMap>;

const setRef = z.object({ set: SetName }).strict();
const paperRef = z.object({ set: SetName, id: z.string().min(1) }).strict();

export const paperCommands = {
  'papers.sets': {
    summary: 'Every paper set in the workspace.',
    request: z.object({}).strict(),
    response: z.object({ sets: z.array(PaperSetSummary) }),
  },
  'papers.list': {
    summary: 'The papers of one set, and the inputs that failed to ingest.',
    request: setRef,
    response: z.object({
      set: PaperSetSummary,
      papers: z.array(PaperSummary),
      failures: z.array(IngestResult),
    }),
  },
  'papers.get': {
    summary: 'One paper with its full text, the text the REPL sees, sections and page starts.',
    request: paperRef,
    response: PaperDetail,
  },
  'papers.importFiles': {
    summary: 'Ingests uploaded files (PDFs, or QASPER JSON) into a set; progress as events.',
    request: z
      .object({
        set: SetName,
        importId: z.string().min(1).max(100),
        files: z
          .array(z.object({ name: z.string().min(1).max(500), dataBase64: z.string() }))
          .min(1),
      })
      .strict(),
    response: z.object({ results: z.array(IngestResult) }),
  },
  'papers.importPaths': {
    summary: 'Ingests files or folders on the engine machine (desktop dialogs, drops with paths).',
    request: z
      .object({
        set: SetName,
        importId: z.string().min(1).max(100),
        paths: z.array(z.string().min(1)).min(1),
      })
      .strict(),
    response: z.object({ results: z.array(IngestResult) }),
  },
  'papers.cancelImport': {
    summary:
      'Cancels a running import: inputs not yet read end as ImportCanceledError; papers already added stay.',
    request: z.object({ importId: z.string().min(1).max(100) }).strict(),
    response: z.object({ canceled: z.boolean() }),
  },
  'papers.importArxiv': {
    summary: 'Downloads arXiv papers by id into a set (needs the network).',
    request: z
      .object({
        set: SetName,
        importId: z.string().min(1).max(100),
        ids: z
          .array(
            z
              .string()
              .regex(
                /^(\d{4}\.\d{4,5}|[a-z-]+(\.[A-Z]{2})?\/\d{7})(v\d+)?$/,
                'an arXiv id like 1706.03762',
              ),
          )
          .min(1),
      })
      .strict(),
    response: z.object({ results: z.array(IngestResult) }),
  },
  'papers.removeSet': {
    summary: 'Deletes a paper set (cached text stays for other sets that share it).',
    request: setRef,
    response: z.object({ removed: z.boolean() }),
  },
  'papers.reextract': {
    summary:
      "Reads papers of a set again from their stored PDFs (all the set's PDFs unless ids are given), with PDFium unless another engine is named; offsets marked on the old text may move.",
    request: z
      .object({
        set: z.string().min(1),
        ids: z.array(z.string().min(1)).max(10_000).optional(),
        engine: z.enum(['pdfium', 'pdf.js']).default('pdfium'),
      })
      .strict(),
    response: z.object({ results: z.array(ReextractResult) }),
  },
  'papers.pdf': {
    summary: "A paper's PDF bytes (PaperHasNoPdfError for QASPER papers).",
    request: paperRef,
    response: z.object({ dataBase64: z.string() }),
  },
  'papers.highlight': {
    summary: 'Boxes on the PDF pages that cover a character range of the full text.',
    request: paperRef
      .extend({ start: z.number().int().nonnegative(), end: z.number().int().nonnegative() })
      .strict(),
    response: z.object({
      pages: z.array(z.object({ width: z.number(), height: z.number() })),
      boxes: z.array(HighlightBox),
    }),
  },
  'papers.search': {
    summary: 'Ranked (BM25) passage search over a set, for the UI.',
    request: setRef
      .extend({
        query: z.string().min(1).max(1000),
        limit: z.number().int().min(1).max(200).default(20),
      })
      .strict(),
    response: z.object({ hits: z.array(RankedHit) }),
  },
  'papers.keywordSearch': {
    summary:
      "The REPL's keyword search over a set: snippets grouped by paper, fuzzy when nothing matches exactly.",
    request: setRef
      .extend({
        keyword: z.string().min(1).max(1000),
        window: z.number().int().min(1).max(10_000).default(300),
      })
      .strict(),
    response: z.object({ fuzzy: z.boolean(), hits: z.record(z.string(), z.array(KeywordSnippet)) }),
  },
  'papers.map': {
    summary:
      'Passages of a set placed in 2D by text similarity: TF-IDF, or sentence embeddings from the local model set in Settings (auto: embeddings when one is set); falls back to TF-IDF with the reason.',
    request: setRef
      .extend({ method: z.enum(['auto', 'tfidf-pca', 'embeddings-pca']).default('auto') })
      .strict(),
    response: PassageMap,
  },
} as const;

export const paperEvents = [
  z.object({
    kind: z.literal('papers.importProgress'),
    at: z.number(),
    importId: z.string(),
    set: z.string(),
    done: z.number().int(),
    total: z.number().int(),
    result: IngestResult.optional(),
  }),
  z.object({ kind: z.literal('papers.setsChanged'), at: z.number() }),
] as const;
