# An agent's builtins: Python's own, minus files/input/help, with checked replacements for the
# ones that reach attributes, code or frames. Invariant: code that eval/exec/compile produce was
# checked like a code block, and always runs with this agent's builtins, never the real ones.
import builtins
import operator
import sys

# Injected by the runner.
ast_guard = None
runtime = None


class CompiledCode:
    """What compile() returns here: opaque, so model code cannot edit a code object."""

    __slots__ = ('_code', '_mode')

    def __init__(self, code, mode):
        self._code, self._mode = code, mode

    def __repr__(self):
        return f'<compiled {self._mode} code>'


def make_builtins(guard, agent_builtins):
    """Fills `agent_builtins` (the dict model code sees as its builtins) for one agent."""
    check = guard.check_name

    def compile_(source, filename='<string>', mode='exec', flags=0, dont_inherit=False, optimize=-1, **kwargs):
        if flags or kwargs:
            raise ValueError('compile(): flags are not available in this sandbox')
        if isinstance(source, bytes):
            source = source.decode('utf-8')
        if not isinstance(source, str):
            raise TypeError('compile() takes source text in this sandbox')
        name = runtime.AGENT_FILE_PREFIX + '-compile>'
        return CompiledCode(ast_guard.compile_guarded(source, name, mode), mode)

    def run_code(kind, source, globals_, locals_, closure):
        if closure is not None:
            raise ValueError(f'{kind}(): closure= is not available in this sandbox')
        if globals_ is None:
            caller = sys._getframe(2)
            globals_ = caller.f_globals
            locals_ = caller.f_locals if locals_ is None else locals_
        elif not isinstance(globals_, dict):
            raise TypeError(f'{kind}() globals must be a dict')
        globals_['__builtins__'] = agent_builtins
        if isinstance(source, CompiledCode):
            code = source._code
        elif isinstance(source, (str, bytes)):
            text = source.decode('utf-8') if isinstance(source, bytes) else source
            mode = 'eval' if kind == 'eval' else 'exec'
            code = ast_guard.compile_guarded(text.strip() if kind == 'eval' else text, runtime.AGENT_FILE_PREFIX + f'-{kind}>', mode)
        else:
            raise TypeError(f'{kind}() takes source text or compile() output in this sandbox')
        runner = builtins.eval if kind == 'eval' else builtins.exec
        return runner(code, globals_, globals_ if locals_ is None else locals_)

    def eval_(source, globals=None, locals=None, /):
        return run_code('eval', source, globals, locals, None)

    def exec_(source, globals=None, locals=None, /, *, closure=None):
        run_code('exec', source, globals, locals, closure)

    def getattr_(obj, name, *default):
        check(name, obj)
        return runtime.guard_format_value(getattr(obj, name, *default))

    def hasattr_(obj, name):
        try:
            check(name, obj)
        except AttributeError:
            return False
        return hasattr(obj, name)

    def setattr_(obj, name, value):
        guard.check_store(obj, name)
        setattr(obj, name, value)

    def delattr_(obj, name):
        guard.check_store(obj, name)
        delattr(obj, name)

    def getprivate(obj, name):
        check(name, obj)
        return getattr(obj, name)

    def format_attr(obj, name):
        return runtime.guard_format_value(getattr(obj, name))

    def inplace(op, current, value):
        if type(op) is not str or op not in _INPLACE:
            raise ValueError(f'unknown in-place operator {op!r}')
        return getattr(operator, op)(current, value)

    def vars_(*args):
        if not args:
            return dict(sys._getframe(1).f_locals)
        if len(args) != 1:
            raise TypeError(f'vars expected at most 1 argument, got {len(args)}')
        target = args[0]
        mine = guard.owns(target) or guard.owns(type(target))
        return {key: runtime.guard_format_value(value) for key, value in vars(target).items()
                if not key.startswith('_') or (mine and not ast_guard.is_dunder(key))}

    def locals_():
        return dict(sys._getframe(1).f_locals)

    def type_(*args, **kwargs):
        if len(args) == 1 and not kwargs:
            return type(args[0])
        if len(args) != 3:
            raise TypeError('type() takes 1 or 3 arguments')
        name, bases, namespace = args
        for key in namespace:
            if type(key) is not str:
                raise TypeError('type(): namespace keys must be plain str')
            if ast_guard.is_dunder(key) and key not in ast_guard.SAFE_DUNDER_DEFS and key not in ast_guard.SAFE_DUNDER_NAMES:
                raise TypeError(f'type(): {key} is not available in this sandbox')
        return guard.register_class(type(name, bases, dict(namespace), **kwargs))

    def build_class(func, name, *bases, **kwargs):
        return guard.register_class(builtins.__build_class__(func, name, *bases, **kwargs))

    agent_builtins.update(_plain_builtins())
    agent_builtins.update({
        '__import__': guard.import_module, '__build_class__': build_class, 'compile': compile_,
        'eval': eval_, 'exec': exec_, 'getattr': getattr_, 'hasattr': hasattr_, 'setattr': setattr_,
        'delattr': delattr_, 'vars': vars_, 'locals': locals_, 'type': type_,
        '_rlm_setattr': setattr_, '_rlm_delattr': delattr_, '_rlm_getprivate': getprivate,
        '_rlm_inplace': inplace, '_rlm_format': format_attr,
    })
    return agent_builtins


_plain = None


def _plain_builtins():
    """Python's public builtins minus _REMOVED, read once (a dir() walk per agent cost more than
    the rest of creating it)."""
    global _plain
    if _plain is None:
        _plain = {name: getattr(builtins, name) for name in dir(builtins)
                  if not name.startswith('_') and name not in _REMOVED}
    return _plain


_INPLACE = frozenset({
    'iadd', 'isub', 'imul', 'imatmul', 'itruediv', 'ifloordiv', 'imod', 'ipow', 'ilshift',
    'irshift', 'ior', 'ixor', 'iand',
})
_REMOVED = frozenset({
    'open', 'input', 'breakpoint', 'help', 'exit', 'quit', 'copyright', 'credits', 'license',
})
