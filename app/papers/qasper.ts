// QASPER JSON (the official test/dev files: {paperId: {title, abstract, full_text, qas}}) -> paper
// documents: each section's name and paragraphs become the text, with exact section offsets.
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
});
export type QasperPaper = z.infer<typeof QasperPaper>;

export interface QasperEntry {
  id: string;
  document?: PaperDocument;
  error?: QasperFormatError;
}

export function qasperDocument(id: string, paper: QasperPaper): PaperDocument {
  const parts: string[] = [];
  const sections: Section[] = [];
  let offset = 0;
  for (const section of paper.full_text) {
    if (parts.length > 0) {
      parts.push('\n\n');
      offset += 2;
    }
    const heading = (section.section_name ?? '').trim();
    const body = section.paragraphs.join('\n\n');
    const text = heading.length > 0 ? `${heading}\n${body}` : body;
    const numbered = /^\d/.test(heading);
    const level = numbered
      ? Math.max(1, heading.split(/\s/)[0]?.split('.').filter(Boolean).length ?? 1)
      : 1;
    if (heading.length > 0) {
      sections.push({
        title: heading,
        level,
        numbered,
        references: /^(references|bibliography)$/i.test(heading),
        start: offset,
        end: offset + text.length,
      });
    }
    parts.push(text);
    offset += text.length;
  }
  const fullText = parts.join('');
  return {
    sha256: createHash('sha256')
      .update(
        JSON.stringify({
          id,
          title: paper.title,
          abstract: paper.abstract,
          full_text: paper.full_text,
        }),
      )
      .digest('hex'),
    kind: 'qasper',
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
