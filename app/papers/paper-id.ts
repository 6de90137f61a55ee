// Short, stable paper ids: the arXiv id when the file name or the text shows one, else a slug of
// the title; unique within a set.
const arxivInName = /(\d{4}\.\d{4,5})(v\d+)?/;
const arxivInText = /arXiv:(\d{4}\.\d{4,5})(v\d+)?/;

export function slugify(text: string, words = 6): string {
  const slug = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .slice(0, words)
    .join('-');
  return slug.length > 0 ? slug : 'paper';
}

export function derivePaperId(fileName: string, title: string, fullText: string): string {
  const fromName = arxivInName.exec(fileName)?.[1];
  if (fromName) return fromName;
  const fromText = arxivInText.exec(fullText.slice(0, 5000))?.[1];
  if (fromText) return fromText;
  return slugify(title || fileName.replace(/\.pdf$/i, ''));
}

export function uniqueId(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) {
    const candidate = `${wanted}-${n}`;
    if (!taken.has(candidate)) return candidate;
  }
}
