// The final answer's evidence spans placed in the papers' text, so the Papers view's highlighter can
// draw them. Answers are lists of verbatim substrings (RLM-SPEC section 4); a span is found exactly
// first, then ignoring whitespace, hyphens and case (PDF text breaks lines and words where the model
// did not).

export interface PaperText {
  id: string;
  fullText: string;
}

export interface LocatedSpan {
  /** The span as the model gave it. */
  text: string;
  paperId: string | null;
  start: number;
  end: number;
}

/** The answer's spans: a list of strings (or of {text}), or one string; anything else has none. */
export function answerSpans(answer: unknown): string[] {
  const items = Array.isArray(answer) ? (answer as unknown[]) : [answer];
  return items
    .map((item) =>
      typeof item === 'string'
        ? item
        : typeof item === 'object' &&
            item !== null &&
            'text' in item &&
            typeof item.text === 'string'
          ? item.text
          : '',
    )
    .map((text) => text.trim())
    .filter((text) => text !== '');
}

/** The text without whitespace and hyphens, lower-cased, with each kept character's offset. */
function squeeze(text: string): { text: string; offsets: number[] } {
  let out = '';
  const offsets: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? '';
    if (/[\s\-\u00ad]/.test(char)) continue;
    out += char.toLowerCase();
    offsets.push(index);
  }
  return { text: out, offsets };
}

function findLoosely(
  paper: PaperText,
  squeezed: () => { text: string; offsets: number[] },
  span: string,
): { start: number; end: number } | null {
  const exact = paper.fullText.indexOf(span);
  if (exact >= 0) return { start: exact, end: exact + span.length };
  const needle = squeeze(span).text;
  if (needle === '') return null;
  const haystack = squeezed();
  const at = haystack.text.indexOf(needle);
  if (at < 0) return null;
  const start = haystack.offsets[at] ?? 0;
  const end = (haystack.offsets[at + needle.length - 1] ?? start) + 1;
  return { start, end };
}

export function locateSpans(spans: readonly string[], papers: readonly PaperText[]): LocatedSpan[] {
  const squeezed = new Map<string, { text: string; offsets: number[] }>();
  const squeezedOf = (paper: PaperText) => () => {
    let known = squeezed.get(paper.id);
    if (!known) {
      known = squeeze(paper.fullText);
      squeezed.set(paper.id, known);
    }
    return known;
  };
  return spans.map((text) => {
    for (const paper of papers) {
      const found = findLoosely(paper, squeezedOf(paper), text);
      if (found) return { text, paperId: paper.id, ...found };
    }
    return { text, paperId: null, start: -1, end: -1 };
  });
}
