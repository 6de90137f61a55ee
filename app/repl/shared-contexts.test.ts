import { describe, expect, it } from 'vitest';
import { SharedContexts } from './shared-contexts.ts';

describe('SharedContexts', () => {
  it('loads a context once, counts its agents and frees it with the last', () => {
    const contexts = new SharedContexts();
    const first = contexts.acquire('{"p1":"text"}');
    expect(first.load).toBe(true);
    expect(contexts.acquire('{"p1":"text"}')).toEqual({ id: first.id, load: false });
    expect(contexts.acquire('"other"').load).toBe(true);
    expect(contexts.release(first.id)).toBe(false);
    expect(contexts.release(first.id)).toBe(true);
    // Gone: the next agent sends it again, under a new id.
    const again = contexts.acquire('{"p1":"text"}');
    expect(again.load).toBe(true);
    expect(again.id).not.toBe(first.id);
  });

  it('forgets a context whose load failed, so the next agent sends it again', () => {
    const contexts = new SharedContexts();
    const failed = contexts.acquire('"x"');
    contexts.drop(failed.id);
    expect(contexts.release(failed.id)).toBe(false);
    expect(contexts.acquire('"x"').load).toBe(true);
  });
});
