// The Papers view's locations: both URL forms read the same, and links round-trip.
import { describe, expect, it } from 'vitest';
import { papersHref, parseCharRange, readPapersLocation } from './route.ts';

function read(href: string, splat?: string) {
  const search = href.includes('?') ? href.slice(href.indexOf('?')) : '';
  return readPapersLocation(splat, new URLSearchParams(search));
}

describe('papers locations', () => {
  it('reads a bare #/papers as no set, the papers tab and no query', () => {
    expect(read('/papers')).toEqual({
      set: undefined,
      paperId: undefined,
      hl: undefined,
      tab: 'papers',
      query: '',
    });
  });

  it('round-trips a paper with a highlighted range, ids with dots and spaces included', () => {
    const href = papersHref({ set: 'my set', paperId: '1911.02782', hl: { start: 10, end: 42 } });
    expect(href).toBe('/papers?set=my+set&paper=1911.02782&hl=10-42');
    expect(read(href)).toMatchObject({
      set: 'my set',
      paperId: '1911.02782',
      hl: { start: 10, end: 42 },
    });
  });

  it('reads the path form from the router splat, with ?hl= beside it', () => {
    expect(read('/papers/demo/1911.02782?hl=5-9', 'demo/1911.02782')).toMatchObject({
      set: 'demo',
      paperId: '1911.02782',
      hl: { start: 5, end: 9 },
    });
    expect(read('/papers/demo', 'demo/')).toMatchObject({ set: 'demo', paperId: undefined });
  });

  it('keeps the tab and the query of a set, and drops the default tab from links', () => {
    expect(papersHref({ set: 'demo', tab: 'papers' })).toBe('/papers?set=demo');
    const href = papersHref({ set: 'demo', tab: 'search', query: 'corpus size' });
    expect(read(href)).toMatchObject({ set: 'demo', tab: 'search', query: 'corpus size' });
    expect(read('/papers?set=demo&tab=bogus').tab).toBe('papers');
  });

  it('accepts only forward, non-empty numeric ranges', () => {
    expect(parseCharRange('0-1')).toEqual({ start: 0, end: 1 });
    expect(parseCharRange('9-9')).toBeUndefined();
    expect(parseCharRange('9-3')).toBeUndefined();
    expect(parseCharRange('a-3')).toBeUndefined();
    expect(parseCharRange(null)).toBeUndefined();
  });
});
