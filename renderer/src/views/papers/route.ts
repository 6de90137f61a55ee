// Where the Papers view stands: a set (and which of its tabs), or one paper with an optional
// highlighted character range. Links are written as hash search params
// (`#/papers?set=demo&paper=ID&hl=10-42`), which the app router already passes to the view; the path
// form `#/papers/demo/ID?hl=10-42` is read too, for when the router gives the view a `papers/*` splat.

export type SetTab = 'papers' | 'search' | 'map';

/** A half-open range [start, end) of UTF-16 offsets into a paper's fullText. */
export interface CharRange {
  start: number;
  end: number;
}

export interface PapersLocation {
  set: string | undefined;
  paperId: string | undefined;
  hl: CharRange | undefined;
  tab: SetTab;
  /** The search box's text (tab 'search'), kept in the URL so Back returns to the hits. */
  query: string;
}

const tabs: readonly SetTab[] = ['papers', 'search', 'map'];

function isSetTab(value: string | null): value is SetTab {
  return tabs.some((tab) => tab === value);
}

/** `'10-42'` -> {start: 10, end: 42}; anything else (empty, reversed, not digits) -> undefined. */
export function parseCharRange(value: string | null | undefined): CharRange | undefined {
  const match = /^(\d+)-(\d+)$/.exec(value ?? '');
  if (!match) return undefined;
  const start = Number(match[1]);
  const end = Number(match[2]);
  return end > start ? { start, end } : undefined;
}

export function formatCharRange(range: CharRange): string {
  return `${String(range.start)}-${String(range.end)}`;
}

/** Decodes `demo/1911.02782` (the router's splat after `papers/`); empty parts are absent. */
function splatParts(splat: string | undefined): [string | undefined, string | undefined] {
  const [set, paperId] = (splat ?? '')
    .split('/')
    .filter((part) => part !== '')
    .map((part) => decodeURIComponent(part));
  return [set, paperId];
}

export function readPapersLocation(
  splat: string | undefined,
  params: URLSearchParams,
): PapersLocation {
  const [splatSet, splatPaper] = splatParts(splat);
  const tab = params.get('tab');
  return {
    set: splatSet ?? params.get('set') ?? undefined,
    paperId: splatPaper ?? params.get('paper') ?? undefined,
    hl: parseCharRange(params.get('hl')),
    tab: isSetTab(tab) ? tab : 'papers',
    query: params.get('q') ?? '',
  };
}

export type PapersTarget =
  | { set?: undefined }
  | { set: string; tab?: SetTab; query?: string }
  | { set: string; paperId: string; hl?: CharRange | undefined };

/** The router path (for <Link to> and navigate) of a place in the Papers view. */
export function papersHref(target: PapersTarget): string {
  const params = new URLSearchParams();
  if (target.set !== undefined) {
    params.set('set', target.set);
    if ('paperId' in target) {
      params.set('paper', target.paperId);
      if (target.hl) params.set('hl', formatCharRange(target.hl));
    } else {
      if (target.tab && target.tab !== 'papers') params.set('tab', target.tab);
      if (target.query) params.set('q', target.query);
    }
  }
  const search = params.toString();
  return search === '' ? '/papers' : `/papers?${search}`;
}
