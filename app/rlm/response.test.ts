import { describe, expect, it } from 'vitest';
import { parseAnswerLiteral } from './literal.ts';
import { codeBlockRule, parseResponse } from './response.ts';

const reply = [
  'First I look at the papers.',
  '```repl',
  'print(list_papers(context))',
  '```',
  'Then search.',
  '```python',
  "hits = search(context, 'BERT')",
  '```',
].join('\n');

describe('parseResponse', () => {
  it('runs the blocks the policy names', () => {
    expect(parseResponse(reply, 'first').toRun).toEqual(['print(list_papers(context))\n']);
    expect(parseResponse(reply, 'last').toRun).toEqual(["hits = search(context, 'BERT')\n"]);
    expect(parseResponse(reply, 'all').toRun).toHaveLength(2);
    expect(parseResponse('no code here', 'all')).toEqual({ blocks: [], toRun: [], final: null });
  });

  it('takes FINAL only as the whole last line outside code', () => {
    expect(parseResponse('Done.\nFINAL(["a span"])', 'last').final).toBe('["a span"]');
    expect(
      parseResponse('I will call FINAL(["x"]) once I am sure.\nLet me check more.', 'last').final,
    ).toBeNull();
    const inCode = '```repl\nFINAL(["x"])\n```';
    expect(parseResponse(inCode, 'last').final).toBeNull();
    expect(parseResponse('FINAL(["early"])\nbut then more reasoning', 'last').final).toBeNull();
  });

  it('neither runs nor answers from a thinking block, closed or cut off', () => {
    const thought = '<think>\nmaybe\n```repl\nprint("draft")\n```\nFINAL(["no"])\n</think>\n\n';
    const parsed = parseResponse(`${thought}${reply}`, 'first');
    expect(parsed.blocks).toHaveLength(2);
    expect(parsed.toRun).toEqual(['print(list_papers(context))\n']);
    expect(parseResponse(`${thought}Done.\nFINAL(["yes"])`, 'last').final).toBe('["yes"]');
    expect(parseResponse('<think>\n```repl\nprint(1)\n```\nFINAL(["x"])', 'all')).toEqual({
      blocks: [],
      toRun: [],
      final: null,
    });
  });

  it('states each policy in words the prompt uses', () => {
    expect(codeBlockRule('first')).toMatch(/FIRST/);
    expect(codeBlockRule('last')).toMatch(/LAST/);
    expect(codeBlockRule('all')).toMatch(/Every code block/);
  });
});

describe('parseAnswerLiteral', () => {
  it('reads JSON and Python literals, keeping a list a list', () => {
    expect(parseAnswerLiteral('["a", "b"]')).toEqual(['a', 'b']);
    expect(parseAnswerLiteral("['it\\'s', \"x\",]")).toEqual(["it's", 'x']);
    expect(parseAnswerLiteral("('a', 'b')")).toEqual(['a', 'b']);
    expect(parseAnswerLiteral("{'p1': ['x'], 'n': 3, 'ok': True, 'none': None}")).toEqual({
      p1: ['x'],
      n: 3,
      ok: true,
      none: null,
    });
    expect(parseAnswerLiteral('"""multi\nline"""')).toBe('multi\nline');
  });

  it('keeps text that is not a literal as text', () => {
    expect(parseAnswerLiteral('The answer is 42')).toBe('The answer is 42');
    expect(parseAnswerLiteral("['unterminated")).toBe("['unterminated");
  });
});
