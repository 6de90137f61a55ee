// Real attacks on the sandbox, each one that works on a default Pyodide in Node (or on a plain
// exec() namespace): host files, processes, sockets, the JS bridges, frames and globals of the
// built-ins, cross-agent tampering. Each must fail with a clear Python error, and the run goes on.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpreterExecArgv } from './interpreter-process.ts';
import { RecordingLoop, samplePapers } from './recording-loop.ts';
import { ReplSandbox } from './sandbox.ts';

const hostFile = join(tmpdir(), `rlm-attack-${String(process.pid)}`);
let repl: ReplSandbox;
let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;
  repl = await ReplSandbox.start({ callbacks: new RecordingLoop(), limits: { timeoutMs: 5_000 } });
  await repl.createAgent('attacker', samplePapers);
  await repl.createAgent('victim', 'the victim context');
  await repl.run('victim', "secret = 'XYZZY-victim-secret'\nimport difflib");
}, 60_000);

afterAll(async () => {
  await repl.dispose();
  await new Promise((resolve) => server.close(resolve));
});

interface Attack {
  name: string;
  code: string;
  /** Error types that count as blocked; the run must end with one of them. */
  refusedWith: string[];
}

const attacks: Attack[] = [
  {
    name: 'js.process fs write to a host file',
    code: `import js\njs.process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(hostFile)}, 'pwned')`,
    refusedWith: ['ImportError'],
  },
  {
    name: 'pyodide_js.mountNodeFS of a host folder',
    code: "import pyodide_js\npyodide_js.mountNodeFS('/host', '/')\nimport os\nprint(os.listdir('/host'))",
    refusedWith: ['ImportError'],
  },
  {
    name: 'pyodide.code.run_js',
    code: "from pyodide.code import run_js\nrun_js('process.exit(1)')",
    refusedWith: ['ImportError'],
  },
  {
    name: 'private Pyodide core module',
    code: 'import _pyodide_core',
    refusedWith: ['SandboxError'],
  },
  {
    name: 'os.system',
    code: `import os\nos.system('touch ${hostFile}')`,
    refusedWith: ['ImportError'],
  },
  {
    name: 'subprocess',
    code: `import subprocess\nsubprocess.run(['touch', ${JSON.stringify(hostFile)}])`,
    refusedWith: ['ImportError'],
  },
  {
    name: 'socket to a live local server',
    code: `import socket\nsocket.create_connection(('127.0.0.1', PORT))`,
    refusedWith: ['ImportError'],
  },
  {
    name: 'open() of a host path',
    code: "print(open('/etc/passwd').read())",
    refusedWith: ['NameError'],
  },
  {
    name: 'io.open of a host path',
    code: "import io\nio.open('/etc/passwd').read()",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'importlib and ctypes',
    code: "import importlib\nimportlib.import_module('ctypes')",
    refusedWith: ['ImportError'],
  },
  {
    name: 'ctypes directly',
    code: 'import ctypes\nctypes.CDLL(None)',
    refusedWith: ['ImportError'],
  },
  {
    name: 'gc.get_objects to find other namespaces',
    code: "import gc\nprint([o for o in gc.get_objects() if isinstance(o, dict) and 'secret' in o])",
    refusedWith: ['ImportError'],
  },
  {
    name: 'sys.modules',
    code: "import sys\nprint(sys.modules['js'])",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'generator frame walk',
    code: 'def g():\n    yield 1\nx = g()\nprint(x.gi_frame.f_back.f_globals)',
    refusedWith: ['SandboxError'],
  },
  {
    name: 'traceback frame walk',
    code: 'try:\n    1 / 0\nexcept Exception as e:\n    print(e.__traceback__.tb_frame.f_back.f_globals)',
    refusedWith: ['SandboxError'],
  },
  {
    name: 'getattr with a built name',
    code: "try:\n    1 / 0\nexcept Exception as e:\n    tb = getattr(e, '__trace' + 'back__')",
    refusedWith: ['AttributeError'],
  },
  {
    name: '__globals__ of a built-in',
    code: 'print(search.__globals__)',
    refusedWith: ['SandboxError'],
  },
  {
    name: '__closure__ through operator.attrgetter',
    code: "import operator\nprint(operator.attrgetter('__closure__')(FINAL_VAR))",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'str subclass that lies to the name check',
    code: "class S(str):\n    def startswith(self, *a):\n        return False\n    def endswith(self, *a):\n        return False\nprint(getattr(search, S('__globals__')))",
    refusedWith: ['TypeError'],
  },
  {
    name: 'match class pattern reading __globals__',
    code: 'match search:\n    case object(__globals__=g):\n        print(g)',
    refusedWith: ['SandboxError'],
  },
  {
    name: 'object.__subclasses__ to reach os',
    code: "print([c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'])",
    refusedWith: ['SandboxError'],
  },
  {
    name: 'exec of smuggled source',
    code: "exec('print(().__class__.__base__.__subclasses__())')",
    refusedWith: ['SandboxError'],
  },
  {
    name: 'eval with fresh globals gets the real builtins',
    code: "eval('__import__', {})('os')",
    refusedWith: ['SandboxError'],
  },
  {
    name: 'edited code object from compile()',
    code: "c = compile('1', 'x', 'eval')\nc = c.replace(co_names=('os',))",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'typing forward references evaluate text',
    code: 'import typing\ntyping.get_type_hints(search)',
    refusedWith: ['AttributeError'],
  },
  {
    name: 'string.Formatter.get_field returns objects',
    code: "import string\nstring.Formatter().get_field('0.__globals__', [search], {})",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'patch a class every agent shares',
    code: 'import difflib\ndifflib.SequenceMatcher.ratio = lambda self: 99.0',
    refusedWith: ['TypeError'],
  },
  {
    name: 'hijack sys.stdout of every agent',
    code: 'import sys\nleak = []\nsys.stdout.write = leak.append',
    refusedWith: ['TypeError'],
  },
  {
    name: 'copy.dispatch_table runs our code on their copies',
    code: 'import copy\ncopy.dispatch_table[list] = print',
    refusedWith: ['AttributeError'],
  },
  {
    name: 'dataclass() rewriting a shared class',
    code: 'import dataclasses, difflib\ndataclasses.dataclass(difflib.SequenceMatcher)',
    refusedWith: ['TypeError'],
  },
  {
    name: 'module attribute patch',
    code: "import json\njson.loads = lambda s: 'evil'",
    refusedWith: ['AttributeError'],
  },
  {
    name: 'private registry of a shared class',
    code: 'import pprint\npprint.PrettyPrinter._dispatch.clear()',
    refusedWith: ['AttributeError'],
  },
  {
    name: '__del__ finalizer running in another agent',
    code: "class Bomb:\n    def __del__(self):\n        print('in someone else')",
    refusedWith: ['SandboxError'],
  },
  { name: 'overwrite context', code: "context = 'gone'", refusedWith: ['ReservedNameError'] },
  {
    name: 'overwrite FINAL_VAR',
    code: 'def FINAL_VAR(x):\n    return None',
    refusedWith: ['ReservedNameError'],
  },
  {
    name: 'recursion bomb',
    code: 'def f(n):\n    return f(n + 1)\nf(0)',
    refusedWith: ['RecursionError'],
  },
];

describe('attacks from model code', () => {
  it.each(attacks)('$name is refused with a clear error', async ({ code, refusedWith }) => {
    const result = await repl.run('attacker', code.replace('PORT', String(port)));
    expect(refusedWith, `${result.stdout}${result.stderr}`).toContain(result.error?.type);
    expect(result.error?.message.length).toBeGreaterThan(0);
  });

  // Format fields walk attributes inside C (str.format) or the stdlib (string.Formatter), out of
  // the AST guard's sight: each route is refused with the guard's own message.
  it.each([
    ["'{0.__globals__}'.format(search)", '__globals__'],
    ["'{0.__closure__}'.format(FINAL_VAR)", '__closure__'],
    ["'{f.__globals__[host]}'.format_map({'f': rlm_query})", '__globals__'],
    ["str.format('{0.__init__.__globals__}', search)", '__globals__'],
    ["('{0.' + '_' * 2 + 'globals' + '_' * 2 + '}').format(search)", '__globals__'],
    ["getattr('{0.__globals__}', 'format')(search)", '__globals__'],
    ["vars(str)['format']('{0.__globals__}', search)", '__globals__'],
    ["import operator\noperator.methodcaller('format', search)('{0.__globals__}')", '__globals__'],
    ["import operator\noperator.attrgetter('format')('{0.__globals__}')(search)", '__globals__'],
    ["import functools\nfunctools.partial(str.format, '{0.__globals__}')(search)", '__globals__'],
    ["'{0:{1.__globals__}}'.format(1, search)", '__globals__'],
    ["'{0._rlm_guard}'.format(search)", '_rlm_guard'],
    ["import string\nstring.Formatter().format('{0.__globals__}', search)", '__globals__'],
    [
      "import string\nclass F(string.Formatter):\n    pass\nF().vformat('{0.__globals__}', [search], {})",
      '__globals__',
    ],
    ["class S(str):\n    pass\nS('{0.__globals__}').format(search)", '__globals__'],
  ])('format-string field walk %s is refused', async (code, field) => {
    const result = await repl.run('attacker', `t = ${code.includes('\n') ? '0\n' + code : code}`);
    expect(result.error?.type, `${result.stdout}${result.stderr}`).toBe('AttributeError');
    expect(result.error?.message).toContain(`attribute '${field}'`);
    expect(result.error?.message).toContain('in this sandbox');
  });

  it('ordinary formatting still works, string.Formatter included', async () => {
    const result = await repl.run(
      'attacker',
      [
        'import string',
        'from collections import namedtuple',
        "P = namedtuple('P', 'x y')",
        'class Box:',
        '    def __init__(self):',
        '        self.size = 3',
        "print('{0} {1:>4} {name} {0!r}'.format('a', 7, name='n'))",
        "print('{p.x}-{p[1]} {b.size} {0.__class__.__name__}'.format(1, p=P(1, 2), b=Box()))",
        "print('{a[k]}'.format_map({'a': {'k': 'v'}}), '{:{w}.{p}f}'.format(3.14159, w=8, p=2))",
        "print(string.Formatter().format('{0.real} {x}', 5, x='y'), f'{Box().size:03d}')",
        "print(list(map('<{}>'.format, [1, 2])), str.format('{0}', 'u'))",
      ].join('\n'),
    );
    expect(result.error, result.stderr).toBeNull();
    expect(result.stdout).toBe("a    7 n 'a'\n1-2 3 int\nv     3.14\n5 y 003\n['<1>', '<2>'] u\n");
  });

  it('tampering with its own builtins stays in its own namespace and is undone', async () => {
    const tampered = await repl.run(
      'attacker',
      "globals()['__builtins__']['len'] = lambda x: 42\nprint(len([1, 2]))",
    );
    expect(tampered.stdout).toBe('42\n');
    expect((await repl.run('victim', 'print(len([1, 2]))')).stdout).toBe('2\n');
    expect((await repl.run('attacker', 'print(len([1, 2]))')).stdout).toBe('2\n');
  });

  it('after every attack the host, the victim and the attacker are intact', async () => {
    const victim = await repl.run(
      'victim',
      "print(secret, context, round(difflib.SequenceMatcher(None, 'abc', 'abd').ratio(), 2))",
    );
    expect(victim.stdout).toBe('XYZZY-victim-secret the victim context 0.67\n');
    const attacker = await repl.run('attacker', 'print(sorted(context), FINAL_VAR(1))');
    expect(attacker.stdout).toBe("['p1', 'p2'] 1\n");
    expect(existsSync(hostFile)).toBe(false);
    expect(connections).toBe(0);
    expect(repl.restarts).toBe(0);
  });
});

describe('the interpreter process (second line of defence)', () => {
  it('cannot write or read host files, spawn processes, load addons or compile strings', () => {
    const probe = new URL('fixtures/host-probe.ts', import.meta.url).pathname;
    const output = execFileSync(process.execPath, [...interpreterExecArgv(), probe, hostFile], {
      env: {},
      encoding: 'utf8',
    });
    const results = JSON.parse(output) as Record<string, string>;
    expect(results).toMatchObject({
      writeFile: 'ERR_ACCESS_DENIED',
      readEtcPasswd: 'ERR_ACCESS_DENIED',
      spawnProcess: 'ERR_ACCESS_DENIED',
      newFunction: 'EvalError',
      evalString: 'EvalError',
      addon: 'ERR_DLOPEN_DISABLED',
    });
    expect(existsSync(hostFile)).toBe(false);
  });
});
