// The theme shown for each setting and system preference, and what the toggle picks.
import { describe, expect, it } from 'vitest';
import { oppositeTheme, resolveTheme } from './theme.ts';

describe('resolveTheme', () => {
  it('follows the system only when the setting says so', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });
});

describe('oppositeTheme', () => {
  it('flips what is shown', () => {
    expect(oppositeTheme('light')).toBe('dark');
    expect(oppositeTheme('dark')).toBe('light');
  });
});
