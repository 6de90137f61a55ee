// The evidence-selection task's data model (RLM-SPEC section 4): a question over a group of papers
// and its gold evidence as verbatim spans. Every dataset format loads into these shapes.

/** A verbatim piece of a paper; `paperId` may be missing when a model returned bare strings. */
export interface EvidenceSpan {
  paperId?: string | undefined;
  text: string;
}

export interface EvidenceQuestion {
  id: string;
  question: string;
  /** The workspace paper set holding the papers. */
  set: string;
  /** The papers of the set that form the context; null: the whole set. */
  paperIds: string[] | null;
  gold: EvidenceSpan[];
  /** QASPER only: each annotator's evidence strings, for the official Evidence-F1. */
  annotations?: string[][] | undefined;
  metadata: Record<string, unknown>;
}

/** A paper as the REPL sees it (`### PAPER:` header, abstract, full text). */
export interface EvidencePaper {
  id: string;
  title: string;
  abstract: string;
  fullText: string;
  /** Where fullText starts in `text`. */
  offset: number;
  text: string;
  /** QASPER only: citable units with offsets into `text` and their evidence strings. */
  units?: { evidence: string; start: number; end: number }[] | undefined;
  /** QASPER only: every evidence string the annotators used for this paper. */
  annotatedEvidence?: ReadonlySet<string> | undefined;
}

/** A row that failed to load: where it is and why. */
export interface RowIssue {
  /** 1-based line of a JSON-lines file; absent for JSON objects keyed by id (QASPER). */
  line?: number | undefined;
  id?: string | undefined;
  reason: string;
}

export type DatasetFormat = 'ours' | 'skyrl' | 'qasper';
export const datasetFormats: readonly DatasetFormat[] = ['ours', 'skyrl', 'qasper'];

export interface EvidenceDataset {
  name: string;
  format: DatasetFormat;
  questions: EvidenceQuestion[];
  issues: RowIssue[];
  /**
   * Papers the dataset carries itself (QASPER, SkyRL), by set and id. Datasets in our format
   * reference workspace paper sets instead and carry none.
   */
  papers: Map<string, Map<string, EvidencePaper>>;
  /** True when Evidence-F1 is defined (QASPER). */
  hasEvidenceF1: boolean;
}

/** Where a question's papers come from: the dataset itself or a workspace paper set. */
export type PaperLookup = (set: string, paperIds: readonly string[] | null) => EvidencePaper[];
