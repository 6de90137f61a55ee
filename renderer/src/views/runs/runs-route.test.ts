import { describe, expect, it } from 'vitest';
import { emptyFilters, readRunsLocation, runsHref, toRunFilter } from './runs-route.ts';

describe('runs route', () => {
  it('round-trips filters and a compared pair through the URL', () => {
    const href = runsHref({
      filters: { ...emptyFilters, text: 'S2ORC', status: 'done', minScore: '0.5' },
      compare: ['a', 'b'],
    });
    expect(href).toBe('/runs?q=S2ORC&status=done&minScore=0.5&compare=a%2Cb');
    const location = readRunsLocation(new URLSearchParams(href.split('?')[1]));
    expect(location.filters.text).toBe('S2ORC');
    expect(location.compare).toEqual(['a', 'b']);
    expect(readRunsLocation(new URLSearchParams('compare=a,a')).compare).toBeNull();
  });

  it('maps the fields onto the engine filter, leaving bad ones out', () => {
    expect(
      toRunFilter({
        ...emptyFilters,
        text: ' q ',
        status: 'failed',
        model: 'gpt',
        set: 'demo',
        minScore: 'x',
        maxDurationS: '90',
        from: '2026-01-02',
        to: '2026-01-02',
      }),
    ).toEqual({
      text: 'q',
      status: ['failed'],
      model: 'gpt',
      set: 'demo',
      maxDurationMs: 90_000,
      from: Date.parse('2026-01-02'),
      to: Date.parse('2026-01-02') + 86_400_000 - 1,
    });
    expect(toRunFilter({ ...emptyFilters, status: 'nope' })).toEqual({});
  });
});
