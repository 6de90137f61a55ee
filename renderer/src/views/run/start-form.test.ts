import { describe, expect, it } from 'vitest';
import { checkStartForm, emptyStartForm } from './start-form.ts';

describe('checkStartForm', () => {
  it('builds a request, leaving empty budgets to the engine', () => {
    const check = checkStartForm({
      ...emptyStartForm,
      set: 'demo',
      question: ' Which datasets? ',
      model: 'scripted:demo.json',
      budgets: { ...emptyStartForm.budgets, maxDepth: '1', wallTimeMin: '2' },
    });
    expect(check).toEqual({
      ok: true,
      request: {
        set: 'demo',
        question: 'Which datasets?',
        model: 'scripted:demo.json',
        budgets: { maxDepth: 1, wallTimeMs: 120_000 },
      },
    });
  });

  it('names every bad field', () => {
    const check = checkStartForm({
      ...emptyStartForm,
      budgets: { ...emptyStartForm.budgets, maxTurns: '2.5', maxDepth: '99' },
    });
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(Object.keys(check.problems).sort()).toEqual(
      ['maxDepth', 'maxTurns', 'model', 'question', 'set'].sort(),
    );
  });
});
