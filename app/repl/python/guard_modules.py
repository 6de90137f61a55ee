# The modules model code may import, each handed out as a read-only per-agent proxy holding only
# public, curated names. Invariant: no proxy holds a real module object, a way to open files or
# sockets, an eval of unchecked text (typing forward refs, singledispatch), or a stdout redirect.
import sys
import types

ALLOWED = (
    're json math cmath collections collections.abc itertools functools string textwrap difflib '
    'statistics dataclasses typing random heapq bisect operator copy datetime decimal fractions '
    'numbers enum unicodedata html hashlib base64 pprint abc contextlib csv array keyword types '
    'time io sys'
).split()
ALLOWED_SET = frozenset(ALLOWED)
# Modules the interpreter itself may load lazily while model code runs (never handed to it).
LAZY_IMPORTS = frozenset({
    '_strptime', 'calendar', 'locale', '_pydecimal', '_pydatetime', 'copyreg', 'weakref',
    'reprlib', 'annotationlib', 'html.entities', 'html.parser', '_markupbase', 'zlib', 'binascii',
    'struct', '_hashlib', '_sha2', '_md5', '_sha1', '_sha3', '_blake2', 'unicodedata',
})
# Names withheld from a module's proxy (shared registries, eval of text, redirects, file access).
REMOVED = {
    'typing': {'get_type_hints', 'ForwardRef', 'evaluate_forward_ref', 'get_args', 'get_origin',
               'overload', 'get_overloads', 'clear_overloads', 'no_type_check',
               'no_type_check_decorator', 'dataclass_transform', 'get_protocol_members'},
    'functools': {'singledispatch', 'singledispatchmethod'},
    'enum': {'global_enum', 'global_enum_repr', 'global_flag_repr', 'global_str'},
    'abc': {'update_abstractmethods'},
    'copy': {'dispatch_table'},
}
# Curated modules: only these names, taken from the real module.
ONLY = {
    'time': {'time', 'time_ns', 'perf_counter', 'perf_counter_ns', 'monotonic', 'monotonic_ns',
             'process_time', 'strftime', 'strptime', 'gmtime', 'localtime', 'mktime', 'asctime',
             'ctime', 'struct_time', 'timezone', 'tzname'},
    'io': {'StringIO', 'BytesIO'},
    'contextlib': {'contextmanager', 'suppress', 'nullcontext', 'closing', 'ExitStack',
                   'AbstractContextManager'},
    'types': {'SimpleNamespace', 'MappingProxyType', 'GeneratorType', 'FunctionType', 'LambdaType',
              'MethodType', 'BuiltinFunctionType', 'NoneType', 'GenericAlias', 'UnionType'},
    'html': {'escape', 'unescape'},
    'sys': {'maxsize', 'maxunicode', 'version', 'version_info', 'float_info', 'int_info',
            'hash_info', 'byteorder', 'platform', 'getsizeof', 'getrecursionlimit', 'stdout',
            'stderr', 'exit', 'intern'},
}
RANDOM_METHODS = (
    'random', 'uniform', 'triangular', 'randint', 'randrange', 'choice', 'choices', 'sample',
    'shuffle', 'gauss', 'normalvariate', 'lognormvariate', 'expovariate', 'betavariate',
    'gammavariate', 'paretovariate', 'weibullvariate', 'vonmisesvariate', 'getrandbits',
    'randbytes', 'seed', 'getstate', 'setstate', 'binomialvariate',
)


class ModuleProxy(types.ModuleType):
    """A read-only stand-in for a module: setting or deleting an attribute raises."""

    def __setattr__(self, name, value):
        raise AttributeError(f"module '{self.__name__}' is read-only in this sandbox; keep your own copy instead")

    def __delattr__(self, name):
        raise AttributeError(f"module '{self.__name__}' is read-only in this sandbox")

    def __repr__(self):
        return f"<module '{self.__name__}' (sandboxed)>"


def preload():
    """Imports every allowed module up front, so model code never triggers a real import."""
    for name in ALLOWED:
        __import__(name)
    import datetime
    datetime.datetime.strptime('2024', '%Y')  # loads _strptime, which strptime imports lazily


def _public_names(name, real):
    only = ONLY.get(name)
    if only is not None:
        return sorted(n for n in only if hasattr(real, n))
    removed = REMOVED.get(name, set())
    return sorted(n for n in dir(real) if not n.startswith('_') and n not in removed)


def build_proxy(name, overrides, child_proxy):
    """The proxy of module `name`: public names, allowed submodules as proxies, then overrides."""
    real = sys.modules[name]
    values = {}
    for attr in _public_names(name, real):
        value = getattr(real, attr)
        if isinstance(value, types.ModuleType):
            qualified = f'{name}.{attr}'
            if qualified not in ALLOWED_SET:
                continue
            value = child_proxy(qualified)
        elif isinstance(value, (dict, list, set, bytearray)):
            value = type(value)(value)  # a module-level table: each agent gets its own copy
        values[attr] = value
    values.update(overrides)
    proxy = ModuleProxy(name)
    proxy.__dict__.update(values)
    proxy.__dict__['__all__'] = tuple(sorted(n for n in values if not n.startswith('_')))
    return proxy


def random_overrides():
    """A Random instance per agent, so one agent's seed() never shifts another's sequence."""
    import random
    generator = random.Random()
    values = {method: getattr(generator, method) for method in RANDOM_METHODS if hasattr(generator, method)}
    values['Random'] = random.Random
    return values
