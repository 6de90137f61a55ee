// QASPER JSON (the official test/dev files: {paperId: {title, abstract, full_text, qas}}) -> paper
// documents: each section's name and paragraphs become the text, with exact section offsets; the
// figure and table captions close it (a PDF shows them too, and QASPER evidence cites them).
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Section } from '../api/index.ts';
import { countWords, type PaperDocument } from './document.ts';
import { QasperFormatError } from './errors.ts';

export const QasperPaper = z.object({
  title: z.string(),
  abstract: z.string(),
  full_text: z.array(
    z.object({ section_name: z.string().nullable(), paragraphs: z.array(z.string()) }),
  ),
  qas: z.array(z.unknown()).optional(),
  figures_and_tables: z.array(z.object({ caption: z.string() }).loose()).optional(),
});
export type QasperPaper = z.infer<typeof QasperPaper>;

export interface QasperEntry {
  id: string;
  document?: PaperDocument;
  error?: QasperFormatError;
}

/**
 * One piece of evidence QASPER can cite, where it lies in the full text: a paragraph, a section
 * name, or a figure/table caption. `evidence` is the string QASPER's annotations use for it.
 */
export interface QasperUnit {
  kind: 'paragraph' | 'heading' | 'caption';
  evidence: string;
  start: number;
  end: number;
}

/** Section title of the captions QASPER keeps beside the full text. */
export const QASPER_CAPTIONS_TITLE = 'Figures and tables';
/** How QASPER's annotations cite a caption. */
export const QASPER_CAPTION_PREFIX = 'FLOAT SELECTED: ';

/** The full text, its sections and every citable unit with exact offsets into the full text. */
export function qasperLayout(paper: QasperPaper): {
  fullText: string;
  sections: Section[];
  units: QasperUnit[];
} {
  const parts: string[] = [];
  const sections: Section[] = [];
  const units: QasperUnit[] = [];
  let offset = 0;
  const captions = (paper.figures_and_tables ?? []).map((figure) => figure.caption);
  const all = [
    ...paper.full_text.map((section) => ({ ...section, captions: false })),
    ...(captions.length > 0
      ? [{ section_name: QASPER_CAPTIONS_TITLE, paragraphs: captions, captions: true }]
      : []),
  ];
  for (const section of all) {
    if (parts.length > 0) {
      parts.push('\n\n');
      offset += 2;
    }
    const heading = (section.section_name ?? '').trim();
    const numbered = /^\d/.test(heading);
    const level = numbered
      ? Math.max(1, heading.split(/\s/)[0]?.split('.').filter(Boolean).length ?? 1)
      : 1;
    const start = offset;
    if (heading.length > 0) {
      if (!section.captions && section.section_name !== null)
        units.push({
          kind: 'heading',
          evidence: section.section_name,
          start: offset,
          end: offset + heading.length,
        });
      parts.push(`${heading}\n`);
      offset += heading.length + 1;
    }
    section.paragraphs.forEach((paragraph, index) => {
      if (index > 0) {
        parts.push('\n\n');
        offset += 2;
      }
      units.push({
        kind: section.captions ? 'caption' : 'paragraph',
        evidence: section.captions ? QASPER_CAPTION_PREFIX + paragraph : paragraph,
        start: offset,
        end: offset + paragraph.length,
      });
      parts.push(paragraph);
      offset += paragraph.length;
    });
    if (heading.length > 0) {
      sections.push({
        title: heading,
        level,
        numbered,
        references: /^(references|bibliography)$/i.test(heading),
        start,
        end: offset,
      });
    }
  }
  return { fullText: parts.join(''), sections, units };
}

export function qasperDocument(id: string, paper: QasperPaper): PaperDocument {
  const { fullText, sections } = qasperLayout(paper);
  return {
    sha256: createHash('sha256')
      .update(
        JSON.stringify({
          id,
          title: paper.title,
          abstract: paper.abstract,
          full_text: paper.full_text,
          captions: paper.figures_and_tables?.map((figure) => figure.caption) ?? [],
        }),
      )
      .digest('hex'),
    kind: 'qasper',
    engine: 'qasper',
    title: paper.title,
    authors: [],
    abstract: paper.abstract,
    fullText,
    sections,
    pageStarts: [],
    pageSizes: [],
    runs: new Float64Array(),
    pages: 0,
    words: countWords(fullText),
    pdf: null,
  };
}

/** Parses a QASPER file; a malformed entry is reported by id while the others load. */
export function parseQasper(fileName: string, json: string): QasperEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch (error) {
    throw new QasperFormatError(
      fileName,
      `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new QasperFormatError(fileName, 'expected an object mapping paper ids to papers');
  }
  return Object.entries(data).map(([id, value]) => {
    const parsed = QasperPaper.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue ? issue.path.map(String).join('.') : '(entry)';
      return {
        id,
        error: new QasperFormatError(id, `field '${field}': ${issue?.message ?? 'invalid'}`),
      };
    }
    return { id, document: qasperDocument(id, parsed.data) };
  });
}
