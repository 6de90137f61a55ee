// The host half of the built-ins, without an interpreter: text references resolve against the
// agent's own context only, and every failure becomes an error envelope for the model.
import { describe, expect, it } from 'vitest';
import { handleCall, resolveTexts, type CallTarget } from './host-calls.ts';
import { RecordingLoop, samplePapers } from './recording-loop.ts';
import type { ReplSearch } from './types.ts';

const root: CallTarget = { agentId: '0', context: samplePapers, contextTexts: samplePapers };
const child: CallTarget = {
  agentId: '0.0',
  context: 'child text',
  contextTexts: { '': 'child text' },
};
const noSearch: ReplSearch = () => ({ fuzzy: false, hits: {} });

describe('resolveTexts', () => {
  it('passes the context object itself when the whole context is searched', () => {
    expect(resolveTexts(root, { p1: { ref: 'p1' }, p2: { ref: 'p2' } })).toBe(samplePapers);
    expect(resolveTexts(child, { '': { ref: '' } })).toBe(child.contextTexts);
  });

  it('mixes references and inline texts, and refuses references outside the context', () => {
    expect(resolveTexts(root, { p1: { ref: 'p1' }, mine: { text: 'abc' } })).toEqual({
      p1: samplePapers.p1,
      mine: 'abc',
    });
    expect(() => resolveTexts(child, { x: { ref: 'p1' } })).toThrow(
      /not part of this agent's context/,
    );
  });
});

describe('handleCall', () => {
  it('maps search hits to their texts', async () => {
    const search: ReplSearch = (texts) => ({
      fuzzy: true,
      hits: { p1: [{ start: 0, end: 3, text: (texts.p1 ?? '').slice(0, 3) }] },
    });
    const payload = JSON.stringify({
      texts: { p1: { ref: 'p1' } },
      keyword: 'x',
      window: 300,
      bidirectional: true,
    });
    expect(await handleCall('search', payload, root, new RecordingLoop(), search)).toEqual({
      ok: true,
      value: { fuzzy: true, hits: { p1: ['###'] } },
    });
  });

  it('turns a failing callback or a malformed payload into an error envelope', async () => {
    const loop = new RecordingLoop();
    loop.answer = () => {
      throw new Error('budget exhausted');
    };
    const failed = await handleCall(
      'rlm_query',
      JSON.stringify({ prompt: 'q', context: null }),
      root,
      loop,
      noSearch,
    );
    expect(failed).toEqual({ ok: false, error: 'budget exhausted' });
    const malformed = await handleCall(
      'llm_query',
      JSON.stringify({ prompt: 3 }),
      root,
      loop,
      noSearch,
    );
    expect('error' in malformed && malformed.error).toContain('prompt');
  });
});
