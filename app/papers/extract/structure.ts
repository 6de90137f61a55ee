// Finds a paper's title, authors, abstract and section headings in its laid-out text. Heuristics
// on font size and position; tested on the 20 shared papers (titles: all 20).
import type { Section } from '../../api/index.ts';
import { bodyFontSize, type TextLine } from './lines.ts';

export interface PaperStructure {
  title: string;
  authors: string[];
  abstract: string;
  sections: Section[];
}

const knownHeadings =
  /^(abstract|introduction|related work|background|preliminaries|method(s|ology)?|experiments?|results|evaluation|analysis|discussion|conclusions?|conclusion and future work|future work|limitations|ethics statement|ethical considerations|broader impact|acknowledg(e)?ments?|references|bibliography|appendix|appendices|supplementary material)$/i;
const referenceHeadings = /^(references|bibliography)$/i;
const numberedHeading =
  /^((?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,3})\.?\s+(\p{Lu}[\p{L}\p{N} ,:;&'’()/+\-–—?]{1,90})$/u;
const notAName =
  /\d|@|\b(university|institute|inc|corp|google|research|lab|labs|laboratory|department|dept|school|college|microsoft|facebook|meta|allen|academy|center|centre|ai2|abstract|conference|proceedings|workshop|arxiv)\b/i;

function normaliseTitle(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function plausibleMetadataTitle(title: string | undefined): title is string {
  if (!title) return false;
  if (/\.(dvi|pdf|tex|docx?)$|^microsoft word|^untitled|^paper$/i.test(title)) return false;
  return title.split(/\s+/).length >= 3;
}

function findAbstractLine(lines: readonly TextLine[]): number {
  return lines.findIndex(
    (line) => line.page <= 1 && /^\s*abstract\b/i.test(line.text) && line.text.trim().length < 400,
  );
}

export function detectTitle(
  lines: readonly TextLine[],
  pageHeight: number,
  metadataTitle?: string,
): { title: string; lastLine: number } {
  const abstractLine = findAbstractLine(lines);
  const candidates = lines
    .map((line, index) => ({ line, index }))
    .filter(
      ({ line, index }) =>
        line.page === 0 &&
        !line.rotated &&
        line.y < pageHeight * 0.5 &&
        (abstractLine < 0 || index < abstractLine) &&
        /\p{L}{2}/u.test(line.text),
    );
  const largest = Math.max(0, ...candidates.map(({ line }) => line.size));
  const group: { line: TextLine; index: number }[] = [];
  for (const candidate of candidates) {
    if (candidate.line.size <= largest - 0.5) {
      if (group.length > 0) break;
      continue;
    }
    group.push(candidate);
  }
  const fromText = normaliseTitle(group.map(({ line }) => line.text).join(' '));
  const lastLine = group.at(-1)?.index ?? -1;
  if (plausibleMetadataTitle(metadataTitle))
    return { title: normaliseTitle(metadataTitle), lastLine };
  return { title: fromText, lastLine };
}

export function detectAuthors(
  lines: readonly TextLine[],
  afterTitle: number,
  abstractLine: number,
): string[] {
  if (afterTitle < 0) return [];
  const end = abstractLine > afterTitle ? abstractLine : Math.min(lines.length, afterTitle + 12);
  const authors: string[] = [];
  for (const line of lines.slice(afterTitle + 1, end)) {
    if (line.page !== 0) break;
    for (const part of line.text.split(/,|\band\b|\s{2,}|·|∗|\*|†|‡/)) {
      const name = part.replace(/[\d∗*†‡§¶]+$/u, '').trim();
      const words = name.split(/\s+/);
      if (words.length < 2 || words.length > 4 || notAName.test(name)) continue;
      if (!words.every((word) => /^\p{Lu}[\p{L}.'’-]*$/u.test(word))) continue;
      if (!authors.includes(name)) authors.push(name);
    }
  }
  return authors;
}

function headingLevel(numbering: string): number {
  return numbering.split('.').length;
}

export function detectSections(lines: readonly TextLine[], textLength: number): Section[] {
  const body = bodyFontSize(lines);
  // Numbered lines above the abstract are affiliations ("1 Carnegie Mellon University"), not headings.
  const abstractStart = lines[findAbstractLine(lines)]?.start ?? -1;
  const headings: Omit<Section, 'end'>[] = [];
  let currentTop = '';
  let lastTopNumber = 0;
  let seenAppendix = false;
  for (const line of lines) {
    const text = line.text.trim();
    if (line.rotated || line.size < body - 0.6 || text.length > 100) continue;
    const bare = text.replace(/[.:]$/, '');
    if (knownHeadings.test(bare)) {
      const references = referenceHeadings.test(bare);
      if (/^append/i.test(bare)) seenAppendix = true;
      headings.push({ title: bare, level: 1, numbered: false, references, start: line.start });
      continue;
    }
    const match = numberedHeading.exec(text);
    if (!match || line.start < abstractStart) continue;
    const numbering = match[1] ?? '';
    const title = (match[2] ?? '').trim();
    if (/[.,;]$/.test(title) || title.split(/\s+/).length > 10 || !/\p{L}{3}/u.test(title))
      continue;
    const top = numbering.split('.')[0] ?? '';
    const letter = /^[A-H]$/.test(top);
    if (letter && !seenAppendix && !headings.some((heading) => heading.references)) continue;
    if (headingLevel(numbering) === 1) {
      if (!letter) {
        const value = Number(top);
        if (value !== lastTopNumber + 1 && !(lastTopNumber === 0 && value <= 1)) continue;
        lastTopNumber = value;
      }
      currentTop = top;
    } else if (top !== currentTop) {
      continue;
    }
    headings.push({
      title: `${numbering} ${title}`,
      level: headingLevel(numbering),
      numbered: true,
      references: false,
      start: line.start,
    });
  }
  return headings.map((heading, index) => ({
    ...heading,
    end: headings[index + 1]?.start ?? textLength,
  }));
}

const abstractStops =
  /\n\s*(CCS Concepts|Additional Key Words|ACM Reference Format|Keywords|Index Terms)\b/i;

export function detectAbstract(
  fullText: string,
  lines: readonly TextLine[],
  sections: readonly Section[],
  afterTitle = -1,
): string {
  const index = findAbstractLine(lines);
  const line = lines[index];
  if (!line) {
    // No "Abstract" heading (ACM's format): the block between the byline and the first heading.
    const from = lines[afterTitle + 1]?.start ?? 0;
    const to = Math.min(sections[0]?.start ?? fullText.length, from + 3000);
    const block = fullText.slice(from, to);
    const stop = abstractStops.exec(block);
    const text = (stop ? block.slice(0, stop.index) : block).trim();
    // Prose starts at the first of three consecutive long lines (affiliations are short).
    const blockLines = text.split('\n');
    const first = blockLines.findIndex((_, i) =>
      blockLines.slice(i, i + 3).every((l) => l.length > 60),
    );
    return first < 0 ? '' : blockLines.slice(first).join('\n').trim();
  }
  const inline = /^\s*abstract\b[\s.:—–-]*/i.exec(line.text);
  const start = line.start + (inline?.[0].length ?? 0);
  const next = sections.find(
    (section) => section.start > line.start && !/^abstract$/i.test(section.title),
  );
  const end = Math.min(next?.start ?? fullText.length, start + 4000);
  return fullText.slice(start, end).trim();
}

export function detectStructure(
  fullText: string,
  lines: readonly TextLine[],
  firstPageHeight: number,
  metadataTitle?: string,
): PaperStructure {
  const { title, lastLine } = detectTitle(lines, firstPageHeight, metadataTitle);
  const sections = detectSections(lines, fullText.length);
  return {
    title,
    authors: detectAuthors(lines, lastLine, findAbstractLine(lines)),
    abstract: detectAbstract(fullText, lines, sections, lastLine),
    sections,
  };
}
