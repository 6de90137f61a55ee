# Runs model code for many agents in one interpreter. JS calls create_agent() and run(); run is
# entered through callPromising, so rlm_query can suspend one agent while others run. Invariant:
# every run tells the host 'begin' once and 'end' once, and leaves context and the built-ins restored.
import gc
import json
import reprlib
import signal
import sys
import types

AGENT_FILE = '<agent>'
RUNNER_FILE = '<rlm-runner>'
MAX_VARIABLES = 200

# Injected by setup().
host = None
ast_guard = runtime = guard_builtins = rlm = None
_RESERVED_BUT_CONTEXT = ()  # the reserved names but `context`, sorted
_repr = reprlib.Repr(maxstring=100, maxother=100, maxlist=5, maxtuple=5, maxset=5, maxdict=4, maxlevel=2, maxlong=40)


class ExecutionTimeout(BaseException):
    """The code ran past its time limit (BaseException, so `except Exception` cannot swallow it)."""


class ExecutionCancelled(BaseException):
    """The run was cancelled by the host."""


class _HostStream:
    """sys.stdout/sys.stderr: every write goes to whichever agent is running now."""

    encoding = 'utf-8'
    errors = 'strict'

    def __init__(self, fd):
        self._fd = fd

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        if text:
            host('write', self._fd, text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False

    def writable(self):
        return True


class _BridgeBlocker:
    """A meta-path finder that refuses the JS bridges once they are out of sys.modules."""

    blocked = ('js', 'pyodide_js')

    def find_spec(self, name, path=None, target=None):
        if name.partition('.')[0] in self.blocked:
            raise ImportError(f'{name} is not available in this sandbox')
        return None


def _on_interrupt(signum, frame):
    reason = host('reason')  # also re-arms the signal: the host raises it once per acknowledgement
    if frame is not None and frame.f_code.co_filename == RUNNER_FILE:
        return  # never break the runner itself; the host keeps signalling until model code runs
    if reason == 'cancelled':
        raise ExecutionCancelled('the run was cancelled')
    if reason.startswith('timeout:'):
        seconds = reason.partition(':')[2]
        raise ExecutionTimeout(f'this code block ran past its {seconds} s time limit and was stopped; '
                               'make it faster (search instead of scanning every sentence, fewer child calls) '
                               'or split the work across turns')
    if reason == 'collect':
        raise ExecutionTimeout('showing this value took too long and was stopped')


def setup(host_function, run_sync, guard_ast, guard_modules, guard_runtime, guard_builtins_module, rlm_builtins):
    global host, ast_guard, runtime, guard_builtins, rlm
    host, ast_guard, runtime, guard_builtins, rlm = host_function, guard_ast, guard_runtime, guard_builtins_module, rlm_builtins
    guard_builtins.ast_guard, guard_builtins.runtime = guard_ast, guard_runtime
    rlm.host, rlm.run_sync, rlm.active, rlm.ExecutionCancelled = host_function, run_sync, guard_runtime.active, ExecutionCancelled
    sys.stdout, sys.stderr = _HostStream(1), _HostStream(2)
    signal.signal(signal.SIGINT, _on_interrupt)
    guard_runtime.setup(guard_ast, guard_modules)
    global _RESERVED_BUT_CONTEXT
    _RESERVED_BUT_CONTEXT = tuple(sorted(guard_ast.RESERVED - {'context'}))
    for name in [name for name in sys.modules if name.partition('.')[0] in _BridgeBlocker.blocked]:
        del sys.modules[name]
    sys.meta_path.insert(0, _BridgeBlocker())
    for name in ('last_exc', 'last_value', 'last_type', 'last_traceback'):
        if hasattr(sys, name):
            delattr(sys, name)


def type_name(value):
    return type.__dict__['__name__'].__get__(type(value))


# Exact plain types whose builtin repr is what _repr gives when it is no longer than this (reprlib
# cuts ints past maxlong, strs past maxstring, others past maxother): the common case, without
# reprlib's per-value dispatch. No model code runs for these types.
_PLAIN_REPR_LIMITS = {int: 40, str: 100, float: 100, bool: 100, type(None): 100}


def short_repr(value):
    try:
        limit = _PLAIN_REPR_LIMITS.get(type(value))
        text = repr(value) if limit is not None else None
        if text is None or len(text) > limit:
            text = _repr.repr(value)
    except BaseException as error:  # a model-defined __repr__ may raise anything, or be interrupted
        text = f'<repr failed: {type_name(error)}>'
    return text if len(text) <= 160 else text[:157] + '...'


class Agent:
    """One agent: its namespace, its builtins and its untouchable original context."""

    def __init__(self, agent_id, original):
        self.id = agent_id
        self.original = original
        self.ref_by_id = ({id(text): key for key, text in original.items()} if isinstance(original, dict)
                          else {id(original): ''})
        self.guard = runtime.AgentGuard()
        self.builtins = guard_builtins.make_builtins(self.guard, {})
        self.builtins.update(rlm.make(self))
        self.master = dict(self.builtins)
        self.ns = {}
        self.context_object = None
        self.final = None
        self.restore()

    def original_text(self, key):
        return self.original.get(key) if isinstance(self.original, dict) else self.original if key == '' else None

    def _context_intact(self):
        current = self.ns.get('context')
        if current is not self.context_object:
            return False
        if isinstance(self.original, dict):
            return len(current) == len(self.original) and all(current.get(k) is v for k, v in self.original.items())
        return True

    def restore(self):
        notes = []
        ns = self.ns
        if self.context_object is not None and not self._context_intact():
            notes.append('`context` was changed; it has been restored (it is the same at the start of every run)')
        self.context_object = dict(self.original) if isinstance(self.original, dict) else self.original
        ns['context'] = self.context_object
        for name in _RESERVED_BUT_CONTEXT:
            if name in ns:
                del ns[name]
                notes.append(f'`{name}` is a REPL built-in; your variable of that name was removed')
        for name in [name for name in ns if name.startswith(ast_guard.GUARD_PREFIX)]:
            del ns[name]
        self.builtins.clear()
        self.builtins.update(self.master)
        ns['__builtins__'] = self.builtins
        ns['__name__'] = '__main__'
        return notes

    def variables(self):
        found = []
        for name, value in list(self.ns.items()):
            if name.startswith('_') or name in ast_guard.RESERVED or isinstance(value, types.ModuleType):
                continue
            if len(found) == MAX_VARIABLES:
                break
            found.append({'name': name, 'type': type_name(value), 'repr': short_repr(value)})
        return found

    def drop_changed(self, before):
        """After a MemoryError: drops what this run bound, so one agent cannot starve the others."""
        dropped = [name for name, value in self.ns.items()
                   if not name.startswith('__') and name != 'context' and before.get(name) != id(value)]
        for name in dropped:
            del self.ns[name]
        return dropped


# Parsed contexts by id, each shared by every agent that has it (the host counts them and says when
# to forget one). Agents never change their `original`; model code only ever sees a copy.
_contexts = {}


def load_context(context_id, context_json):
    _contexts[context_id] = json.loads(context_json)


def forget_context(context_id):
    _contexts.pop(context_id, None)


def create_agent(agent_id, context_id):
    if context_id not in _contexts:
        raise KeyError(f'context {context_id} was not loaded in this interpreter')
    return Agent(agent_id, _contexts[context_id])


def error_message(error):
    message = rlm.safe_str(error)
    return 'out of memory' if not message and isinstance(error, MemoryError) else message


def _format_error(error, source):
    name, message = type_name(error), error_message(error)
    lines = source.splitlines()
    if isinstance(error, SyntaxError) and error.filename == AGENT_FILE:
        text = (error.text or '').rstrip('\n')
        caret = ' ' * max(0, (error.offset or 1) - 1 - (len(text) - len(text.lstrip()))) + '^'
        return f'  File "<code>", line {error.lineno}\n    {text.strip()}\n    {caret}\n{name}: {error.msg}'
    frames = []
    tb = error.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == AGENT_FILE:
            line = lines[tb.tb_lineno - 1].strip() if 0 < tb.tb_lineno <= len(lines) else ''
            frames.append(f'  File "<code>", line {tb.tb_lineno}, in {code.co_name}\n    {line}')
        tb = tb.tb_next
    head = 'Traceback (most recent call last):\n' + '\n'.join(frames) + '\n' if frames else ''
    return f'{head}{name}: {message}'


def run(agent, source):
    """Runs one code block in `agent`'s namespace; returns the outcome as JSON text."""
    host('begin', agent.id)
    try:
        runtime.active[0] = True
        agent.final = None
        before = dict(zip(agent.ns, map(id, agent.ns.values())))
        error = None
        try:
            exec(ast_guard.compile_guarded(source, AGENT_FILE), agent.ns)
        except BaseException as caught:
            error = caught
        host('collect')
        runtime.active[0] = True
        report = {'error': None, 'final': agent.final, 'variables': [], 'traceback': '', 'notes': []}
        if error is not None:
            report['error'] = {'type': type_name(error), 'message': error_message(error)}
            if isinstance(error, MemoryError):
                dropped = agent.drop_changed(before)
                if dropped:
                    report['notes'].append(f'out of memory: the variables this run bound were dropped to free it: {", ".join(dropped)}')
        report['variables'] = agent.variables()
        host('quiet')
        runtime.active[0] = False
        if error is not None:
            report['traceback'] = _format_error(error, source)
            if isinstance(error, MemoryError):
                error = None
                gc.collect()
            error = None
        report['notes'].extend(agent.restore())
        return json.dumps(report)
    finally:
        runtime.active[0] = False
        host('end')
