// The REPL built-ins of RLM-SPEC section 2, run in a real interpreter against a recording loop:
// context restore, paper helpers, search, child calls, FINAL_VAR, reserved names, the stdlib.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keywordSearchSet } from '../papers/search/index.ts';
import { RecordingLoop, samplePapers } from './recording-loop.ts';
import { ReplSandbox } from './sandbox.ts';

const loop = new RecordingLoop();
const searchedTexts: object[] = [];
let repl: ReplSandbox;

beforeAll(async () => {
  repl = await ReplSandbox.start({
    callbacks: loop,
    limits: { timeoutMs: 5_000 },
    search: (texts, keyword, options) => {
      searchedTexts.push(texts);
      return keywordSearchSet(texts, keyword, options);
    },
  });
  await repl.createAgent('0', samplePapers);
  await repl.createAgent('0.0', 'Child context: the method splits papers into passages.');
}, 60_000);

afterAll(async () => {
  await repl.dispose();
});

beforeEach(() => {
  loop.calls.length = 0;
  loop.answer = (agentId, prompt) => `answer from ${agentId} to ${prompt}`;
  loop.failBatches = null;
});

async function ok(agentId: string, code: string) {
  const result = await repl.run(agentId, code);
  expect(result.error, result.stderr).toBeNull();
  return result;
}

describe('context', () => {
  it('is the paper dict for the root and the given string for a child', async () => {
    expect((await ok('0', 'print(sorted(context), type(context).__name__)')).stdout).toBe(
      "['p1', 'p2'] dict\n",
    );
    expect((await ok('0.0', 'print(context)')).stdout).toContain('Child context');
  });

  it('is restored after a run that mutated or rebound it', async () => {
    const changed = await ok('0', "context['p1'] = 'gone'\ncontext.pop('p2')\nprint(len(context))");
    expect(changed.stdout).toBe('1\n');
    expect(changed.stderr).toContain('`context` was changed; it has been restored');
    await ok('0', "globals()['context'] = 'replaced'");
    const after = await ok('0', "print(sorted(context), context['p1'][:17])");
    expect(after.stdout).toBe("['p1', 'p2'] ### PAPER: Attent\n");
  });
});

describe('paper helpers', () => {
  it('list_papers prints id, title and the start of each paper and returns the titles', async () => {
    const result = await ok('0', 'titles = list_papers(context)\nprint(titles)');
    expect(result.stdout).toContain('p1: Attention Is Enough');
    expect(result.stdout).toContain('We study transformers');
    expect(result.stdout).toContain("['Attention Is Enough', 'Recursive Models']");
  });

  it('get_paper_abstract returns id, title and the abstract block only', async () => {
    const result = await ok('0', "print(get_paper_abstract(context, 'p2'))");
    expect(result.stdout).toBe(
      'p2: Recursive Models\n\nA model that calls itself on sub-problems.\n',
    );
    const missing = await repl.run('0', "get_paper_abstract(context, 'p9')");
    expect(missing.error?.type).toBe('PaperNotFoundError');
    expect(missing.error?.message).toContain("['p1', 'p2']");
  });

  it('extract_section cuts from start phrase to end phrase inclusive, case-insensitively, with fallbacks', async () => {
    const result = await ok(
      '0',
      [
        "s = 'Intro. The METHOD splits papers. Results follow.'",
        "print(repr(extract_section(s, 'the method', 'papers.')))",
        "print(repr(extract_section(s, 'missing', 'splits')))",
        "print(repr(extract_section(s, 'results', 'nowhere')))",
      ].join('\n'),
    );
    expect(result.stdout).toBe(
      "'The METHOD splits papers.'\n'Intro. The METHOD splits'\n'Results follow.'\n",
    );
  });
});

describe('search', () => {
  it('groups hits by paper for the dict and returns exact slices, passing the context object itself', async () => {
    searchedTexts.length = 0;
    const result = await ok(
      '0',
      [
        "hits = search(context, 'transformers', window=80)",
        'print(sorted(hits))',
        'print(all(s in context[p] for p, snippets in hits.items() for s in snippets))',
        "print(type(search(context['p1'], 'passage')).__name__)",
      ].join('\n'),
    );
    expect(result.stdout).toBe("['p1', 'p2']\nTrue\nlist\n");
    expect(searchedTexts[0]).toBe(samplePapers);
  });

  it('searches a string (the child context) and reports an approximate fallback', async () => {
    const exact = await ok('0.0', "print(search(context, 'PASSAGES'))");
    expect(exact.stdout).toContain('splits papers into passages');
    const fuzzy = await ok('0', "print(len(search(context, 'recursiom')))");
    expect(fuzzy.stdout).toContain('no exact match; showing approximate matches');
    const bad = await repl.run('0', "search(context, '')");
    expect(bad.error?.type).toBe('ValueError');
  });
});

describe('child calls', () => {
  it('rlm_query suspends anywhere in the code and returns the answer as a Python value', async () => {
    loop.answer = (_agent, prompt, context) => [
      prompt,
      typeof context === 'string' ? context.length : null,
    ];
    const result = await ok(
      '0',
      [
        "top = rlm_query('top', context['p2'])",
        'def nested(q):',
        '    return rlm_query(q)',
        "inner = nested('nested')",
        "comp = [rlm_query(f'c{i}')[0] for i in range(2)]",
        'print(type(top).__name__, top, inner, comp)',
      ].join('\n'),
    );
    expect(result.stdout).toBe(
      `list ['top', ${String(samplePapers.p2?.length)}] ['nested', None] ['c0', 'c1']\n`,
    );
    expect(loop.calls.map((call) => [call.op, call.agentId, call.args[0]])).toEqual([
      ['rlmQuery', '0', 'top'],
      ['rlmQuery', '0', 'nested'],
      ['rlmQuery', '0', 'c0'],
      ['rlmQuery', '0', 'c1'],
    ]);
  });

  it('rlm_query raises a catchable RlmQueryError when the child fails', async () => {
    loop.answer = () => {
      throw new Error('depth budget of 2 reached');
    };
    const result = await ok(
      '0',
      "try:\n    rlm_query('x')\nexcept RuntimeError as e:\n    print(type(e).__name__, e)",
    );
    expect(result.stdout).toBe('RlmQueryError depth budget of 2 reached\n');
  });

  it('rlm_query_batched keeps input order and never raises, even when the whole batch fails', async () => {
    loop.delayMs = 0;
    loop.answer = (_agent, prompt) =>
      prompt === 'b' ? 'Error: child b failed' : prompt.toUpperCase();
    const batch = await ok(
      '0',
      "print(rlm_query_batched(['a', 'b', 'c'], [context['p1'], 'x', None]))",
    );
    expect(batch.stdout).toBe("['A', 'Error: child b failed', 'C']\n");
    expect(loop.calls[0]?.args[1]).toEqual([samplePapers.p1, 'x', null]);
    loop.failBatches = 'wall-time budget exhausted';
    const failed = await ok('0', "print(rlm_query_batched(['a', 'b']))");
    expect(failed.stdout).toBe(
      "['Error: wall-time budget exhausted', 'Error: wall-time budget exhausted']\n",
    );
  });

  it('llm_query and llm_query_batched return plain strings', async () => {
    const result = await ok('0', "print(llm_query('hi'), llm_query_batched(['a', 'b']))");
    expect(result.stdout).toBe("llm: hi ['llm: a', 'llm: b']\n");
  });
});

describe('FINAL_VAR and SHOW_VARS', () => {
  it('a variable name gives its value; a list stays a list', async () => {
    const result = await ok('0', "answer = ['span one', 'span two']\nFINAL_VAR('answer')");
    expect(result.final).toEqual({ value: ['span one', 'span two'], source: 'variable' });
  });

  it('a tuple, dict or number is the answer itself', async () => {
    expect((await ok('0', "FINAL_VAR(('a', 'b'))")).final).toEqual({
      value: ['a', 'b'],
      source: 'value',
    });
    expect((await ok('0', "FINAL_VAR({'k': (1, 2.5)})")).final).toEqual({
      value: { k: [1, 2.5] },
      source: 'value',
    });
    expect((await ok('0', 'FINAL_VAR(42)')).final).toEqual({ value: 42, source: 'value' });
  });

  it('a missing variable is an error message, not the end', async () => {
    const result = await ok('0', "r = FINAL_VAR('no_such_thing')");
    expect(result.final).toBeNull();
    expect(result.stderr).toContain(
      "there is no variable named 'no_such_thing', so this is not the end",
    );
  });

  it('FINAL inside code explains where FINAL belongs; SHOW_VARS lists user variables and types', async () => {
    const final = await ok('0', "FINAL('x')");
    expect(final.final).toBeNull();
    expect(final.stderr).toContain('outside the code block');
    const shown = await ok('0', 'n = 3\nprint(SHOW_VARS())');
    expect(shown.stdout).toMatch(/Variables: .*n \(int\)/);
    expect(shown.stdout).not.toContain('context');
    expect(shown.variables.find((v) => v.name === 'n')).toEqual({
      name: 'n',
      type: 'int',
      repr: '3',
    });
  });

  it('shows each variable as a short repr: plain values whole up to their limit, then cut', async () => {
    const result = await ok(
      '0',
      "i40 = 10**39\ni41 = 10**40\ns98 = 'a' * 98\ns99 = 'a' * 99\nf = 1.5\nb = True\nz = None\nl = list(range(9))",
    );
    const reprs = Object.fromEntries(result.variables.map((v) => [v.name, v.repr]));
    expect(reprs).toMatchObject({
      i40: '1' + '0'.repeat(39),
      i41: '1' + '0'.repeat(17) + '...' + '0'.repeat(19),
      s98: `'${'a'.repeat(98)}'`,
      s99: `'${'a'.repeat(47)}...${'a'.repeat(48)}'`,
      f: '1.5',
      b: 'True',
      z: 'None',
      l: '[0, 1, 2, 3, 4, ...]',
    });
  });
});

describe('reserved names', () => {
  it('rebinding a built-in or context at module level is refused before anything runs', async () => {
    for (const code of [
      "print('ran')\nsearch = 1",
      'def context():\n    pass',
      'for FINAL_VAR in range(2):\n    pass',
    ]) {
      const result = await repl.run('0', code);
      expect(result.error?.type, code).toBe('ReservedNameError');
      expect(result.stdout).toBe('');
    }
  });

  it('local names may shadow them, and a globals() rebinding is undone after the run', async () => {
    await ok(
      '0',
      'def f(context, search=2):\n    return context + search\nprint(f(1), [context for context in range(2)])',
    );
    const tampered = await ok('0', "globals()['FINAL_VAR'] = print");
    expect(tampered.stderr).toContain('`FINAL_VAR` is a REPL built-in');
    expect((await ok('0', 'FINAL_VAR(1)')).final).toEqual({ value: 1, source: 'value' });
  });
});

describe('standard library', () => {
  it('the modules models reach for work', async () => {
    const code = [
      'import re, json, math, collections, itertools, functools, string, textwrap, difflib, statistics, dataclasses, typing',
      "print(re.findall(r'\\d+', 'a1b22'), json.loads('[1, {\"a\": 2}]'), math.isqrt(17))",
      "print(collections.Counter('abca').most_common(1), list(itertools.pairwise('abc')), functools.reduce(lambda a, b: a * b, [1, 2, 3]))",
      "print(string.capwords('a b'), textwrap.shorten('hello big world', width=11), round(difflib.SequenceMatcher(None, 'abc', 'abd').ratio(), 2))",
      'print(statistics.median([3, 1, 2]))',
      '@dataclasses.dataclass',
      'class Span:',
      '    paper: str',
      '    text: str = ""',
      '    def key(self) -> typing.Tuple[str, str]:',
      '        return (self.paper, self.text)',
      "Point = collections.namedtuple('Point', 'x y')",
      "print(Span('p1', 't').key(), dataclasses.asdict(Span('p2')), Point(1, 2)._asdict())",
    ].join('\n');
    const result = await ok('0', code);
    expect(result.stdout).toBe(
      [
        "['1', '22'] [1, {'a': 2}] 4",
        "[('a', 2)] [('a', 'b'), ('b', 'c')] 6",
        'A B hello [...] 0.67',
        '2',
        "('p1', 't') {'paper': 'p2', 'text': ''} {'x': 1, 'y': 2}",
        '',
      ].join('\n'),
    );
  });

  it('classes the model defines behave normally (private attributes, super, attribute updates)', async () => {
    const code = [
      'class Base:',
      '    def __init__(self):',
      '        self._seen = []',
      'class Tracker(Base):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.count = 0',
      '    def add(self, x):',
      '        self._seen.append(x)',
      '        self.count += 1',
      '        return self',
      't = Tracker().add(1).add(2)',
      'Tracker.label = "t"',
      'print(t.count, t._seen, t.label, getattr(t, "count"))',
    ].join('\n');
    expect((await ok('0', code)).stdout).toBe('2 [1, 2] t 2\n');
  });
});
