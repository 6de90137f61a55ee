import { describe, expect, it } from 'vitest';
import { countOf } from './count.ts';

describe('countOf', () => {
  it('says one thing in the singular and every other count in the plural, grouped', () => {
    expect(countOf(1, 'run')).toBe('1 run');
    expect(countOf(0, 'run')).toBe('0 runs');
    expect(countOf(3, 'agent')).toBe('3 agents');
    expect(countOf(1451, 'question')).toBe('1,451 questions');
  });
});
