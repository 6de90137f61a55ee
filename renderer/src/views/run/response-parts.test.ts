import { describe, expect, it } from 'vitest';
import { responseParts } from './response-parts.ts';

describe('responseParts', () => {
  it('splits prose and fenced code, keeping the language', () => {
    expect(responseParts('Let me look.\n\n```repl\nx = 1\nprint(x)\n```\nThen\nFINAL(x)')).toEqual([
      { kind: 'text', text: 'Let me look.' },
      { kind: 'code', language: 'repl', code: 'x = 1\nprint(x)' },
      { kind: 'text', text: 'Then\nFINAL(x)' },
    ]);
  });

  it('runs an unclosed fence to the end (a streaming response)', () => {
    expect(responseParts('```python\nimport re')).toEqual([
      { kind: 'code', language: 'python', code: 'import re' },
    ]);
  });
});
