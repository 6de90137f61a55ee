// The AST guard's fast path (guard_ast._compile_fast): code it accepts must compile to exactly
// what the full rewriter path gives, and every construct the rewriter changes or refuses must be
// sent the full way. Runs guard_ast.py in an in-process Pyodide (no sandbox process needed).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

interface Pyodide {
  globals: { set(name: string, value: unknown): void };
  runPython(code: string): unknown;
}

// Each one is something the rewriter rewrites or refuses (reachable code, so the bytecode shows it),
// or something the fast path declines only to stay simple (classes, imports, '_' names, annotations).
const rewriterHandles = [
  // attribute stores and deletes, in every statement that can store one
  'x.y = 1',
  'a = x.y = 2',
  'a, x.y = 1, 2',
  '[a, *x.y] = [1, 2]',
  'x.y += 1',
  'x.y: int = 1',
  'del x.y',
  'del z, x.y',
  'for x.y in z:\n    pass',
  'with f() as x.y:\n    pass',
  '[1 for x.y in z]',
  'def f():\n    x.y = 1',
  'lambda: [q for x.y in z]',
  // private, dunder and guard names, as attributes or names
  'x._p',
  'print(x._p)',
  'x._rlm_t',
  'x.__class__',
  'x.__init__',
  'x.__globals__',
  'f"{x.__class__}"',
  'def f():\n    return x._p',
  '_rlm_x = 1',
  '_p = 1',
  '__x = 1',
  'print(__builtins__)',
  'print(__debug__)',
  '__debug__',
  'def __del__(self):\n    pass',
  'def f(__x):\n    pass',
  'def f(_rlm_x):\n    pass',
  'lambda __x: 1',
  'def f(*, _rlm_k=1):\n    pass',
  'def f():\n    _rlm_x = 1\n    def g():\n        nonlocal _rlm_x\n    return g',
  'class A:\n    pass',
  'class A:\n    def __repr__(self):\n        return "a"',
  '"""a module docstring"""',
  'x: int = 1',
  // frame, traceback and code fields
  'f.f_back',
  'print(t.tb_frame)',
  'g.gi_frame',
  'c.co_consts',
  'def f(e):\n    return e.__traceback__.tb_frame.f_globals',
  // reserved names rebound at module level
  'context = 1',
  'FINAL = 2',
  'context += "x"',
  'del context',
  'a, context = 1, 2',
  'for context in y:\n    pass',
  'def search():\n    pass',
  'class rlm_query:\n    pass',
  'with f() as context:\n    pass',
  'try:\n    pass\nexcept E as context:\n    pass',
  '(context := 1)',
  '[(context := 1) for q in y]',
  'list((llm_query := 1) for q in y)',
  'type context = int',
  'match y:\n    case context:\n        pass',
  'match y:\n    case [*context]:\n        pass',
  'match y:\n    case {**context}:\n        pass',
  // global declarations, even without a store
  'def f():\n    global context\n    context = 1',
  'def f():\n    global context',
  'def f():\n    global __x',
  // imports
  'import json',
  'import json as context',
  'import os._private',
  'from . import x',
  'from ._m import x',
  'from m import _x',
  'from m import *',
  // class patterns (keyword attributes)
  'match y:\n    case P(__class__=q):\n        pass',
  'match y:\n    case P(a=q):\n        pass',
  // non-ASCII: identifiers are NFKC-normalised ('\uff3f' is a fullwidth '_')
  'print(\uff3f\uff3fbuiltins\uff3f\uff3f)',
  'x.\uff3fp',
  '\uff43ontext = 1',
];

// Ordinary model code: the fast path must take it, and give the full path's code object.
const ordinary = [
  'x = 1',
  'part = len(context)',
  "FINAL_VAR('part')",
  "parts = rlm_query_batched(['a', 'b', 'c'], ['one', 'two', 'three'])",
  'print(parts)',
  'def f(context):\n    return context',
  'def f():\n    context = 2\n    return context',
  '[context for context in y]',
  'x[0] = 1\ndel x[0]\ndel y',
  'for i in range(3):\n    print(i, search(context, "x"))',
  'try:\n    pass\nexcept ValueError as e:\n    print(e)',
  'print(f"{x!r:>10}")',
  'y = sorted(d.items(), key=lambda kv: kv[1])',
  'print(x.y.z)',
  'with f() as g:\n    pass',
  'def f():\n    x = 1\n    def g():\n        nonlocal x\n        x += 1\n    return g',
  'res = [rlm_query(q) for q in qs if q]',
  'def f():\n    x.y: int',
  'def f():\n    return super().g()',
];

let pyodide: Pyodide;

beforeAll(async () => {
  const require = createRequire(import.meta.url);
  const pyodideDir = dirname(require.resolve('pyodide/package.json'));
  const { loadPyodide } = (await import(pathToFileURL(join(pyodideDir, 'pyodide.mjs')).href)) as {
    loadPyodide: (options: Record<string, unknown>) => Promise<Pyodide>;
  };
  pyodide = await loadPyodide({ indexURL: pyodideDir + '/' });
  pyodide.globals.set(
    'guard_source',
    readFileSync(join(import.meta.dirname, 'python', 'guard_ast.py'), 'utf8'),
  );
  pyodide.runPython(`
import ast, json, types
guard = types.ModuleType('guard_ast')
exec(compile(guard_source, '<rlm-guard-ast>', 'exec'), guard.__dict__)

def full_path(source, mode):
    try:
        return compile(guard.check_tree(ast.parse(source, '<agent>', mode)), '<agent>', mode, dont_inherit=True)
    except Exception as error:
        return f'{type(error).__name__}: {error}'

def judge(snippets, mode):
    out = []
    for source in snippets:
        fast = guard._compile_fast(source, '<agent>', mode)
        fast = None if fast is guard._DECLINED else fast
        full = full_path(source, mode)
        out.append({'source': source, 'fast': fast is not None, 'same': fast == full,
                    'full': full if isinstance(full, str) else 'code',
                    'guarded_same': guard.compile_guarded(source, '<agent>', mode) == full if fast is not None else None})
    return json.dumps(out)
`);
}, 60_000);

interface Verdict {
  source: string;
  fast: boolean;
  same: boolean;
  full: string;
  guarded_same: boolean | null;
}

function judge(snippets: string[], mode = 'exec'): Verdict[] {
  pyodide.globals.set('snippets', snippets);
  return JSON.parse(
    pyodide.runPython(`judge(snippets.to_py(), ${JSON.stringify(mode)})`) as string,
  ) as Verdict[];
}

describe('AST guard fast path', () => {
  it('sends every construct the rewriter rewrites or refuses down the full path', () => {
    const verdicts = judge(rewriterHandles);
    expect(verdicts.filter((verdict) => verdict.fast).map((verdict) => verdict.source)).toEqual([]);
    // The list really exercises the rewriter: refusals among them, with its messages.
    expect(verdicts.find((v) => v.source === 'context = 1')?.full).toMatch(/^ReservedNameError/);
    expect(verdicts.find((v) => v.source === 'x.__globals__')?.full).toMatch(/^SandboxError/);
    expect(verdicts.find((v) => v.source === 'def f():\n    global context')?.full).toMatch(
      /^ReservedNameError/,
    );
  });

  it('takes ordinary code and compiles it exactly as the full path does', () => {
    const verdicts = judge(ordinary);
    const rewrittenAlike = 'def f():\n    x.y: int'; // rewritten to `x` alone: CPython's own meaning
    for (const verdict of verdicts) {
      expect(verdict.fast, verdict.source).toBe(true);
      expect(verdict.full, verdict.source).toBe('code');
      expect(verdict.guarded_same, verdict.source).toBe(true);
      if (verdict.source !== rewrittenAlike) expect(verdict.same, verdict.source).toBe(true);
    }
  });

  it('works for eval-mode sources too (the guarded eval built-in)', () => {
    const verdicts = judge(['1 + len(context)', 'x._p', 'x.__class__', '(context := 2)'], 'eval');
    expect(verdicts.map((verdict) => verdict.fast)).toEqual([true, false, false, false]);
    expect(verdicts[0]?.same).toBe(true);
  });

  it('shows a SyntaxWarning once, whichever path compiles the code', () => {
    pyodide.globals.set('sources', ["x = '\\d'", "x.y = '\\d'", "context = '\\d'"]);
    const counts = JSON.parse(
      pyodide.runPython(`
import warnings
counts = []
for source in sources.to_py():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        try:
            guard.compile_guarded(source, '<agent>')
        except guard.SandboxError:
            pass
    counts.append(len([w for w in seen if issubclass(w.category, SyntaxWarning)]))
json.dumps(counts)
`) as string,
    ) as number[];
    expect(counts).toEqual([1, 1, 1]);
  });

  it('leaves code that does not compile to the full path, which reports it as before', () => {
    const verdicts = judge(['x = (', 'return 1', 'def f():\n    nonlocal q']);
    expect(verdicts.map((verdict) => verdict.fast)).toEqual([false, false, false]);
    for (const verdict of verdicts) expect(verdict.full, verdict.source).toMatch(/^SyntaxError/);
  });
});
