# Runtime guard: each agent's own builtins (import through the allowlist, checked eval/exec,
# attribute guards the AST rewriter calls), and an audit hook that refuses host access while
# model code runs. Invariant: classes and modules shared by all agents are never mutated by one,
# and private state is readable only on objects of classes the agent itself defined.
import _string
import operator
import sys
import types
import weakref

# Injected by the runner: guard_ast and guard_modules (module objects kept out of sys.modules).
ast_guard = None
modules = None
AGENT_FILE_PREFIX = '<agent'
# True while model code (or a model-defined __repr__ etc.) may be running.
active = [False]

_BLOCKED_EVENTS = frozenset({
    'open', 'sys._current_frames', 'sys._current_exceptions', 'sys.settrace', 'sys.setprofile',
    'sys.addaudithook', 'sys.remote_exec', 'code.__new__', 'function.__new__', 'builtins.input',
    'builtins.breakpoint', 'time.sleep', 'sys.excepthook', 'sys.unraisablehook', 'setopencodehook',
})
_BLOCKED_PREFIXES = (
    'os.', 'subprocess.', 'socket.', 'ctypes.', 'gc.', 'shutil.', 'glob.', 'tempfile.', 'marshal.',
    'pickle.', 'urllib.', 'http.', 'ftplib.', 'smtplib.', 'poplib.', 'imaplib.', 'nntplib.',
    'webbrowser.', 'sqlite3.', 'mmap.', 'fcntl.', 'resource.', 'syslog.', 'cpython.', 'ensurepip.',
    'sys.monitoring', '_thread.', 'threading.', 'signal.', 'pdb.', 'msvcrt.', 'winreg.',
)
_FRAME_ATTRS = frozenset({'tb_frame', 'gi_frame', 'cr_frame', 'ag_frame'})


class HostAccessError(PermissionError):
    """Model code reached for the host (files, processes, sockets, frames, the interpreter)."""


def _audit(event, args):
    if not active[0]:
        return
    if event in _BLOCKED_EVENTS or event.startswith(_BLOCKED_PREFIXES):
        raise HostAccessError(f'{event}: not available in this sandbox (no files, processes, sockets or interpreter internals)')
    if event == 'object.__getattr__' and len(args) > 1 and args[1] in _FRAME_ATTRS:
        raise HostAccessError(f'{args[1]}: frames are not available in this sandbox')
    if event == 'import' and not _import_allowed(args[0]):
        raise HostAccessError(f'import {args[0]}: module not available in this sandbox')


def _import_allowed(name):
    return name in modules.ALLOWED_SET or name in modules.LAZY_IMPORTS or name.startswith('encodings.')


def install_audit_hook():
    sys.addaudithook(_audit)


def _guard_stdlib_eval():
    """Forward references evaluate arbitrary text with real builtins: refuse it while models run."""
    import annotationlib
    import typing

    def refusing(original, what):
        def guarded(*args, **kwargs):
            if active[0]:
                raise HostAccessError(f'{what} evaluates text outside the sandbox checks; not available')
            return original(*args, **kwargs)
        return guarded

    annotationlib.ForwardRef.evaluate = refusing(annotationlib.ForwardRef.evaluate, 'ForwardRef.evaluate')
    typing.get_type_hints = refusing(typing.get_type_hints, 'typing.get_type_hints')
    if hasattr(typing, 'evaluate_forward_ref'):
        typing.evaluate_forward_ref = refusing(typing.evaluate_forward_ref, 'typing.evaluate_forward_ref')


def refuse_format_walks(template, depth=0):
    """Raises AttributeError when a format string's fields read an attribute the guard refuses
    elsewhere (dunders outside the safe set, private and sandbox names, frame fields). Nested
    fields in format specs are checked too; a malformed template is left for format() to report."""
    if not isinstance(template, str) or depth > 2:
        return
    try:
        parts = list(_string.formatter_parser(template))
    except ValueError:
        return
    for _literal, field, spec, _conversion in parts:
        if field is not None:
            refuse_field_walk(field)
        if spec:
            refuse_format_walks(spec, depth + 1)


def refuse_field_walk(field):
    try:
        _first, rest = _string.formatter_field_name_split(field)
        rest = list(rest)
    except ValueError:
        return
    for is_attribute, name in rest:
        if not is_attribute:
            continue
        reason = ast_guard.attribute_refusal(name)
        if reason is None and name.startswith('_') and not ast_guard.is_dunder(name) \
                and name not in ast_guard.PUBLIC_PRIVATE_ATTRS:
            reason = 'private and sandbox attributes cannot be read through a format field'
        if reason:
            raise AttributeError(f'format field {{{field}}}: attribute {name!r}: {reason} in this sandbox')


def _checked_formatter(method, bound):
    """str.format or str.format_map (bound to its template, or not) that checks its fields first."""
    def checked(*args, **kwargs):
        refuse_format_walks(method.__self__ if bound else (args[0] if args else None))
        return method(*args, **kwargs)
    checked.__name__ = checked.__qualname__ = method.__name__
    checked.__doc__ = method.__doc__
    return checked


def guard_format_value(value):
    """`value` itself, or the checked version when it is str.format or str.format_map."""
    if value is str.format or value is str.format_map:
        return _checked_formatter(value, bound=False)
    if type(value) is types.BuiltinMethodType and isinstance(value.__self__, str) \
            and value.__name__ in ast_guard.FORMAT_ATTRS:
        return _checked_formatter(value, bound=True)
    return value


def _guard_string_formatter():
    """string.Formatter reads fields by getattr in Python code: check them while models run."""
    import string
    original = string.Formatter.get_field

    def get_field(self, field_name, args, kwargs):
        if active[0]:
            refuse_field_walk(field_name)
        return original(self, field_name, args, kwargs)

    string.Formatter.get_field = get_field


def _freeze_shared_tables():
    """Public mutable tables on shared classes would let one agent plant objects another one uses."""
    import textwrap
    textwrap.TextWrapper.unicode_whitespace_trans = types.MappingProxyType(dict(textwrap.TextWrapper.unicode_whitespace_trans))


def setup(guard_ast, guard_modules):
    global ast_guard, modules
    ast_guard, modules = guard_ast, guard_modules
    modules.preload()
    _guard_stdlib_eval()
    _guard_string_formatter()
    _freeze_shared_tables()
    install_audit_hook()


class AgentGuard:
    """The per-agent half of the guard: classes this agent defined, its module proxies, its builtins."""

    def __init__(self):
        self.owned = weakref.WeakSet()
        self.proxies = {}

    # -- ownership and attributes --------------------------------------------------------------
    def owns(self, cls):
        try:
            return cls in self.owned
        except TypeError:
            return False

    def private_allowed(self, obj, name):
        if isinstance(obj, super):
            return self.owns(obj.__thisclass__)
        is_class = issubclass(type(obj), type)
        cls = obj if is_class else type(obj)
        if not is_class:
            try:
                instance_dict = object.__getattribute__(obj, '__dict__')
            except AttributeError:
                instance_dict = None
            if isinstance(instance_dict, dict) and name in instance_dict:
                return self.owns(cls)
        for klass in type.__dict__['__mro__'].__get__(cls):
            if name in type.__dict__['__dict__'].__get__(klass):
                return self.owns(klass)
        return self.owns(cls)

    def check_name(self, name, obj=None, storing=False):
        if type(name) is not str:  # a str subclass could lie in startswith() and slip past the checks
            raise TypeError(f'attribute name must be a plain str, not {type(name).__name__}')
        reason = ast_guard.attribute_refusal(name)
        if reason is None and name.startswith(ast_guard.GUARD_PREFIX):
            reason = 'the name belongs to the sandbox'
        if reason is None and storing and ast_guard.is_dunder(name):
            reason = 'dunder attributes cannot be assigned'
        if reason is None and name.startswith('_') and not ast_guard.is_dunder(name) \
                and name not in ast_guard.PUBLIC_PRIVATE_ATTRS and not self.private_allowed(obj, name):
            reason = f'private attributes of {type(obj).__name__} objects belong to the interpreter (only classes you define expose theirs)'
        if reason:
            raise AttributeError(f'attribute {name!r}: {reason} in this sandbox')

    def check_store(self, obj, name):
        """Attributes may be set only on what this agent made: its classes, their instances, its functions."""
        self.check_name(name, obj, storing=True)
        if isinstance(obj, types.ModuleType):
            raise AttributeError(f"module '{obj.__name__}' is read-only in this sandbox")
        if issubclass(type(obj), type):
            if not self.owns(obj):
                raise TypeError(f"cannot change class '{obj.__name__}': it is shared by every agent in this interpreter; subclass it instead")
        elif not (self.owns(type(obj)) or defined_by_agent(obj) or type(obj) is types.SimpleNamespace):
            raise TypeError(f"cannot set attributes on a {type(obj).__name__} object here: objects of library types may be shared "
                            "between agents; set attributes only on instances of classes you define (or types.SimpleNamespace)")

    def register_class(self, cls):
        if issubclass(type(cls), type):
            self.owned.add(cls)
        return cls

    # -- import ----------------------------------------------------------------------------------
    def proxy(self, name):
        found = self.proxies.get(name)
        if found is None:
            overrides = modules.random_overrides() if name == 'random' else self._overrides(name)
            found = modules.build_proxy(name, overrides, self.proxy)
            self.proxies[name] = found
        return found

    def _overrides(self, name):
        if name == 'functools':
            return {'wraps': self._wraps, 'update_wrapper': self._update_wrapper, 'total_ordering': self._owned_only(sys.modules['functools'].total_ordering)}
        if name == 'dataclasses':
            return {'dataclass': self._dataclass, 'make_dataclass': self._make_dataclass}
        if name == 'operator':
            return {'attrgetter': self._attrgetter, 'methodcaller': self._methodcaller}
        return {}

    def import_module(self, name, globals=None, locals=None, fromlist=(), level=0):
        if type(name) is not str:
            raise TypeError('module names must be plain str')
        if level:
            raise ImportError('relative imports are not available in this sandbox')
        if name not in modules.ALLOWED_SET:
            raise ImportError(f"module '{name}' is not available in this sandbox (no files, processes or network). Available: {', '.join(modules.ALLOWED)}")
        if fromlist:
            return self.proxy(name)
        return self.proxy(name.partition('.')[0])

    # -- wrappers of stdlib helpers that mutate classes ------------------------------------------
    def _owned_only(self, helper):
        def guarded(cls, *args, **kwargs):
            if not self.owns(cls):
                raise TypeError(f'{helper.__name__}() works only on classes you define in this sandbox')
            return helper(cls, *args, **kwargs)
        return guarded

    def _dataclass(self, cls=None, /, **kwargs):
        import annotationlib
        import dataclasses
        if cls is None:
            return lambda target: self._dataclass(target, **kwargs)
        if not self.owns(cls):
            raise TypeError('dataclass() works only on classes you define in this sandbox')
        # dataclasses writes field names into generated source: only plain identifiers may reach it.
        names = annotationlib.get_annotations(cls, format=annotationlib.Format.FORWARDREF)
        _check_field_names(names, 'dataclass()')
        return self.register_class(dataclasses.dataclass(cls, **kwargs))

    def _make_dataclass(self, cls_name, fields, *args, namespace=None, **kwargs):
        import dataclasses
        if type(cls_name) is not str or not str.isidentifier(cls_name):
            raise TypeError('make_dataclass(): the class name must be an identifier')
        fields = list(fields)
        _check_field_names([field if type(field) is str else field[0] for field in fields], 'make_dataclass()')
        if namespace and any(type(key) is not str or ast_guard.is_dunder(key) for key in namespace):
            raise TypeError('make_dataclass(): dunder names in namespace are not available in this sandbox')
        return self.register_class(dataclasses.make_dataclass(cls_name, fields, *args, namespace=namespace, **kwargs))

    def _update_wrapper(self, wrapper, wrapped, *args, **kwargs):
        import functools
        if not (defined_by_agent(wrapper) or self.owns(wrapper)):
            raise TypeError('update_wrapper()/wraps() can wrap only functions and classes you define')
        return functools.update_wrapper(wrapper, wrapped, *args, **kwargs)

    def _wraps(self, wrapped, *args, **kwargs):
        return lambda wrapper: self._update_wrapper(wrapper, wrapped, *args, **kwargs)

    def _attrgetter(self, *names):
        for name in names:
            if type(name) is not str:
                raise TypeError('attrgetter() takes plain str names')
            for part in name.split('.'):
                self.check_name(part, object())  # private parts are refused: the target is unknown here
        getter = operator.attrgetter(*names)
        if len(names) == 1:
            return lambda obj: guard_format_value(getter(obj))
        return lambda obj: tuple(guard_format_value(value) for value in getter(obj))

    def _methodcaller(self, name, *args, **kwargs):
        self.check_name(name, object())
        if name in ast_guard.FORMAT_ATTRS:
            return lambda obj: guard_format_value(getattr(obj, name))(*args, **kwargs)
        return operator.methodcaller(name, *args, **kwargs)


def _check_field_names(names, caller):
    import keyword
    for name in names:
        if type(name) is not str or not str.isidentifier(name) or keyword.iskeyword(name) or ast_guard.is_dunder(name):
            raise TypeError(f'{caller}: field name {name!r} is not available in this sandbox (plain identifiers only)')


def defined_by_agent(function):
    """True for functions compiled from model code (their code carries the agent file name)."""
    return isinstance(function, types.FunctionType) and function.__code__.co_filename.startswith(AGENT_FILE_PREFIX)
