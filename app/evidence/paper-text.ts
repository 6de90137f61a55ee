// Builds an EvidencePaper the way the workspace would store and show it, so a dataset's own papers
// score exactly as they read once ingested.
import { contextText } from '../papers/index.ts';
import type { EvidencePaper } from './question.ts';

export function evidencePaper(
  id: string,
  title: string,
  abstract: string,
  fullText: string,
): EvidencePaper {
  const { text, offset } = contextText(title, abstract, fullText);
  return { id, title, abstract, fullText, offset, text };
}
