# Static guard for model-written code: parsed, checked and rewritten before it is compiled.
# Invariant: compiled agent code cannot name an introspection attribute (dunders outside a small
# safe set, frame/traceback fields), cannot rebind a reserved name globally, and every attribute
# store or private-attribute read goes through a runtime guard (_rlm_setattr, _rlm_getprivate, ...).
import ast
import opcode
import warnings

RESERVED = frozenset({
    'context', 'list_papers', 'search', 'extract_section', 'get_paper_abstract', 'rlm_query',
    'rlm_query_batched', 'llm_query', 'llm_query_batched', 'FINAL_VAR', 'FINAL', 'SHOW_VARS',
})
# Dunder attributes model code may read: enough for classes, super().__init__ and repr code.
SAFE_DUNDER_ATTRS = frozenset({
    '__init__', '__name__', '__qualname__', '__doc__', '__class__', '__len__', '__iter__',
    '__next__', '__contains__', '__getitem__', '__setitem__', '__str__', '__repr__', '__eq__',
    '__ne__', '__lt__', '__le__', '__gt__', '__ge__', '__hash__', '__add__', '__sub__', '__mul__',
    '__truediv__', '__bool__', '__enter__', '__exit__', '__post_init__', '__format__',
})
# Dunder methods model classes may define; anything else (__del__, __prepare__, ...) is refused.
SAFE_DUNDER_DEFS = SAFE_DUNDER_ATTRS | frozenset({
    '__new__', '__delitem__', '__reversed__', '__missing__', '__getattr__', '__call__',
    '__radd__', '__iadd__', '__rsub__', '__isub__', '__rmul__', '__imul__', '__rtruediv__',
    '__floordiv__', '__rfloordiv__', '__mod__', '__rmod__', '__pow__', '__rpow__', '__neg__',
    '__pos__', '__abs__', '__invert__', '__and__', '__rand__', '__or__', '__ror__', '__xor__',
    '__rxor__', '__lshift__', '__rshift__', '__matmul__', '__round__', '__int__', '__float__',
    '__index__', '__complex__', '__divmod__', '__aenter__', '__aexit__', '__aiter__', '__anext__',
    '__await__',
})
SAFE_DUNDER_NAMES = frozenset({'__name__', '__slots__', '__doc__'})
# Frame, traceback, generator and code fields: each one is a path to another namespace.
BLOCKED_ATTRS = frozenset({
    'f_back', 'f_globals', 'f_locals', 'f_builtins', 'f_code', 'f_trace', 'tb_frame', 'tb_next',
    'gi_frame', 'gi_code', 'gi_yieldfrom', 'cr_frame', 'cr_code', 'cr_await', 'cr_origin',
    'ag_frame', 'ag_code', 'ag_await', 'co_consts', 'co_code', 'co_names',
})
# The namedtuple API is the one private-looking surface models legitimately use.
PUBLIC_PRIVATE_ATTRS = frozenset({'_asdict', '_replace', '_fields', '_make', '_field_defaults'})
GUARD_PREFIX = '_rlm_'
# str methods that walk attributes named in their format string (`'{0.__globals__}'.format(f)`):
# every read of them goes through _rlm_format, which checks the fields first.
FORMAT_ATTRS = frozenset({'format', 'format_map'})


class SandboxError(Exception):
    """Model code used something this sandbox does not offer; the message says what instead."""


class ReservedNameError(SandboxError):
    """Model code tried to rebind a built-in or `context` at module level."""


def is_dunder(name):
    return len(name) > 4 and name.startswith('__') and name.endswith('__')


def attribute_refusal(name):
    """Why `obj.<name>` is refused, or None when it may be read (private names need a runtime check)."""
    if is_dunder(name):
        return None if name in SAFE_DUNDER_ATTRS else 'dunder attributes other than __init__, __name__, __class__, ... are not available'
    if name in BLOCKED_ATTRS:
        return 'frame, traceback and code fields are not available'
    return None


def _fail(node, message, error=SandboxError):
    raise error(f'line {getattr(node, "lineno", "?")}: {message}')


class _Rewriter(ast.NodeTransformer):
    """Checks every node and routes attribute stores and private reads through runtime guards."""

    def __init__(self):
        self.scopes = ['module']
        self.temps = 0
        # Set when new nodes were made: only then do locations need filling in (a full tree walk).
        self.rewritten = False

    # -- scopes and reserved names ------------------------------------------------------------
    def _binds_global(self, walrus):
        transparent = ('module', 'comprehension') if walrus else ('module',)
        return all(scope in transparent for scope in self.scopes)

    def _check_binding(self, node, name, walrus=False):
        if name.startswith(GUARD_PREFIX):
            _fail(node, f'names starting with {GUARD_PREFIX} belong to the sandbox; choose another name')
        if is_dunder(name) and name not in SAFE_DUNDER_NAMES:
            _fail(node, f'binding {name} is not available in this sandbox')
        if name in RESERVED and self._binds_global(walrus):
            what = 'the papers' if name == 'context' else 'a REPL built-in'
            _fail(node, f'`{name}` is {what} and cannot be rebound; use another name (e.g. `my_{name}`)', ReservedNameError)

    def _scoped(self, scope, node):
        self.scopes.append(scope)
        try:
            return self.generic_visit(node)
        finally:
            self.scopes.pop()

    def visit_FunctionDef(self, node):
        self._check_def(node)
        return self._scoped('function', node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def _check_def(self, node):
        if is_dunder(node.name):
            if self.scopes[-1] != 'class' or node.name not in SAFE_DUNDER_DEFS:
                _fail(node, f'defining {node.name} is not available in this sandbox')
        else:
            self._check_binding(node, node.name)
        for arg in ast.walk(node.args):
            if isinstance(arg, ast.arg) and (is_dunder(arg.arg) or arg.arg.startswith(GUARD_PREFIX)):
                _fail(node, f'parameter name {arg.arg} is not available')

    def visit_Lambda(self, node):
        return self._scoped('function', node)

    def visit_ClassDef(self, node):
        self._check_binding(node, node.name)
        return self._scoped('class', node)

    def _comprehension(self, node):
        for gen in node.generators:
            if any(isinstance(target, ast.Attribute) for target in ast.walk(gen.target)):
                _fail(node, 'comprehension targets must be plain names')
        return self._scoped('comprehension', node)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Global(self, node):
        for name in node.names:
            if name in RESERVED:
                _fail(node, f'`{name}` is reserved by the REPL and cannot be declared global', ReservedNameError)
            self._check_binding(node, name)
        return node

    def visit_NamedExpr(self, node):
        self._check_binding(node, node.target.id, walrus=True)
        node.value = self.visit(node.value)
        return node

    def visit_ExceptHandler(self, node):
        if node.name:
            self._check_binding(node, node.name)
        return self.generic_visit(node)

    def visit_Nonlocal(self, node):
        for name in node.names:
            if is_dunder(name) or name.startswith(GUARD_PREFIX):
                _fail(node, f'nonlocal {name} is not available')
        return node

    # -- names, imports, attributes -------------------------------------------------------------
    def visit_Name(self, node):
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._check_binding(node, node.id)
        elif is_dunder(node.id) and node.id not in SAFE_DUNDER_NAMES:
            _fail(node, f'{node.id} is not available in this sandbox')
        return node

    def visit_alias(self, node):
        for part in node.name.split('.'):
            if part.startswith('_') and part != '*':
                _fail(node, f'importing {node.name} is not available (private name)')
        self._check_binding(node, (node.asname or node.name).split('.')[0])
        return node

    def visit_ImportFrom(self, node):
        if node.level:
            _fail(node, 'relative imports are not available')
        if any(part.startswith('_') for part in (node.module or '').split('.')):
            _fail(node, f'importing from {node.module} is not available (private module)')
        return self.generic_visit(node)

    def visit_MatchClass(self, node):
        for name in node.kwd_attrs:
            self._check_attr_name(node, name)
        return self.generic_visit(node)

    def visit_MatchAs(self, node):
        if node.name:
            self._check_binding(node, node.name)
        return self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self._check_binding(node, node.name)
        return node

    def visit_MatchMapping(self, node):
        if node.rest:
            self._check_binding(node, node.rest)
        return self.generic_visit(node)

    def _check_attr_name(self, node, name):
        reason = attribute_refusal(name)
        if reason:
            _fail(node, f'attribute {name!r}: {reason} in this sandbox')
        if name.startswith(GUARD_PREFIX):
            _fail(node, f'attribute {name!r} belongs to the sandbox')

    def visit_Attribute(self, node):
        self._check_attr_name(node, node.attr)
        node = self.generic_visit(node)
        if isinstance(node.ctx, ast.Load) and _needs_private_check(node.attr):
            self.rewritten = True
            call = _guard_call('_rlm_getprivate', node.value, ast.Constant(node.attr))
            return ast.copy_location(call, node)
        if isinstance(node.ctx, ast.Load) and node.attr in FORMAT_ATTRS:
            self.rewritten = True
            call = _guard_call('_rlm_format', node.value, ast.Constant(node.attr))
            return ast.copy_location(call, node)
        if not isinstance(node.ctx, ast.Load):
            _fail(node, 'attributes can be assigned only as `obj.name = value`, `obj.name += value` or `del obj.name`')
        return node

    # -- statements that store attributes --------------------------------------------------------
    def visit_Assign(self, node):
        if not any(_has_attribute_target(target) for target in node.targets):
            return self.generic_visit(node)
        self.rewritten = True
        value = self.visit(node.value)
        statements, stores = [], []
        temp = self._temp()
        statements.append(ast.Assign(targets=[ast.Name(temp, ast.Store())], value=value))
        for target in node.targets:
            target = self._split_target(target, stores)
            statements.append(ast.Assign(targets=[target], value=ast.Name(temp, ast.Load())))
        statements.extend(stores)
        return [ast.copy_location(statement, node) for statement in statements]

    def _split_target(self, target, stores):
        if isinstance(target, ast.Attribute):
            self._check_attr_name(target, target.attr)
            temp = self._temp()
            stores.append(ast.Expr(_guard_call('_rlm_setattr', self.visit(target.value), ast.Constant(target.attr), ast.Name(temp, ast.Load()))))
            return ast.Name(temp, ast.Store())
        if isinstance(target, (ast.Tuple, ast.List)):
            target.elts = [self._split_target(element, stores) for element in target.elts]
            return target
        if isinstance(target, ast.Starred):
            target.value = self._split_target(target.value, stores)
            return target
        return self.visit(target)

    def visit_AugAssign(self, node):
        if not isinstance(node.target, ast.Attribute):
            return self.generic_visit(node)
        self._check_attr_name(node, node.target.attr)
        self.rewritten = True
        temp = self._temp()
        holder = ast.Assign(targets=[ast.Name(temp, ast.Store())], value=self.visit(node.target.value))
        current = self.visit(ast.Attribute(ast.Name(temp, ast.Load()), node.target.attr, ast.Load()))
        operator = ast.Constant(_INPLACE[type(node.op).__name__])
        updated = _guard_call('_rlm_inplace', operator, current, self.visit(node.value))
        store = ast.Expr(_guard_call('_rlm_setattr', ast.Name(temp, ast.Load()), ast.Constant(node.target.attr), updated))
        return [ast.copy_location(holder, node), ast.copy_location(store, node)]

    def visit_AnnAssign(self, node):
        if not isinstance(node.target, ast.Attribute):
            return self.generic_visit(node)
        self.rewritten = True
        if node.value is None:
            # `obj.name: T` stores nothing but evaluates `obj`, as CPython does (and the fast path).
            return ast.copy_location(ast.Expr(self.visit(node.target.value)), node)
        return self.visit_Assign(ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node))

    def visit_Delete(self, node):
        self.rewritten = True
        statements = []
        for target in node.targets:
            if isinstance(target, ast.Attribute):
                self._check_attr_name(target, target.attr)
                call = _guard_call('_rlm_delattr', self.visit(target.value), ast.Constant(target.attr))
                statements.append(ast.Expr(call))
            else:
                statements.append(ast.Delete(targets=[self.visit(target)]))
        return [ast.copy_location(statement, node) for statement in statements]

    def _temp(self):
        self.temps += 1
        return f'{GUARD_PREFIX}t{self.temps}'


_INPLACE = {
    'Add': 'iadd', 'Sub': 'isub', 'Mult': 'imul', 'MatMult': 'imatmul', 'Div': 'itruediv',
    'FloorDiv': 'ifloordiv', 'Mod': 'imod', 'Pow': 'ipow', 'LShift': 'ilshift', 'RShift': 'irshift',
    'BitOr': 'ior', 'BitXor': 'ixor', 'BitAnd': 'iand',
}


def _needs_private_check(name):
    return name.startswith('_') and not is_dunder(name) and name not in PUBLIC_PRIVATE_ATTRS


def _has_attribute_target(target):
    return any(isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) for node in ast.walk(target))


def _guard_call(name, *args):
    return ast.Call(func=ast.Name(name, ast.Load()), args=list(args), keywords=[])


def check_tree(tree):
    """Checks and rewrites a parsed module/expression in place; raises SandboxError."""
    rewriter = _Rewriter()
    tree = rewriter.visit(tree)
    return ast.fix_missing_locations(tree) if rewriter.rewritten else tree


# -- fast path ------------------------------------------------------------------------------------
# The rewriter walks the tree in Python, which costs more than parsing and compiling together.
# Most model code gives it nothing to do; that is provable from the compiled code objects at C
# speed. The fast path compiles the source directly and keeps the result only when every test
# below passes; otherwise the source takes the full path above, which then decides (and reports)
# exactly as before. Each test is conservative: it may send harmless code the slow way, never the
# reverse. What the rewriter reacts to, and the test that sees it:
# - any name starting with '_' (dunders, _rlm_ names, private attributes, class bodies, module
#   annotations, super()'s __class__ cell): co_names, co_varnames, co_cellvars and co_freevars of
#   every code object (names stay there even when the compiler drops unreachable code);
# - frame, traceback and code fields (BLOCKED_ATTRS) and `.format`/`.format_map` reads
#   (FORMAT_ATTRS): co_names;
# - attribute stores and deletes in any form (=, +=, annotated, del, for/with/comprehension
#   targets), and class patterns (their keyword attributes): STORE_ATTR, DELETE_ATTR, MATCH_CLASS;
# - rebinding a reserved name at module level (any binding statement, walrus in a comprehension):
#   STORE_NAME, DELETE_NAME, STORE_GLOBAL or DELETE_GLOBAL on that name;
# - `global` declarations and imports (private modules, relative imports), which may leave no trace
#   in the bytecode: the words 'global' and 'import' anywhere in the source;
# - non-ASCII source (identifiers are NFKC-normalised: a fullwidth '＿' is '_') and '__' anywhere
#   (`__debug__` is folded to a constant and leaves no name): the source text.
# Code the compiler removes as unreachable (after `break`/`raise`, under `if 0:`) is not seen by
# the bytecode tests; it can never run, so the fast path may accept what the rewriter would have
# refused there with an error, and nothing else.
_SLOW_OPS = tuple(opcode.opmap[name] for name in ('STORE_ATTR', 'DELETE_ATTR', 'MATCH_CLASS', 'IMPORT_NAME', 'IMPORT_FROM'))
_NAME_STORE_OPS = tuple(opcode.opmap[name] for name in ('STORE_NAME', 'DELETE_NAME', 'STORE_GLOBAL', 'DELETE_GLOBAL'))
_EXTENDED_ARG = opcode.opmap['EXTENDED_ARG']
_CodeType = type(compile('', '<empty>', 'exec'))


def _code_needs_rewriter(code):
    """True unless this code object (not its children) certainly gives the rewriter nothing to do."""
    names = code.co_names
    for group in (names, code.co_varnames, code.co_cellvars, code.co_freevars):
        for name in group:
            if name.startswith('_'):
                return True
    if not BLOCKED_ATTRS.isdisjoint(names) or not FORMAT_ATTRS.isdisjoint(names):
        return True
    ops = code.co_code[::2]  # opcodes (co_code is de-optimised: inline caches are 0, CACHE)
    for op in _SLOW_OPS:
        if op in ops:
            return True
    if RESERVED.isdisjoint(names):
        return False
    reserved = {index for index, name in enumerate(names) if name in RESERVED}
    if _EXTENDED_ARG in ops:
        return True
    args = code.co_code[1::2]
    for op in _NAME_STORE_OPS:
        at = ops.find(op)
        while at != -1:
            if args[at] in reserved:
                return True
            at = ops.find(op, at + 1)
    return False


_DECLINED = object()


def _compile_fast(source, filename, mode):
    """The code object of `source` when the rewriter would neither change nor refuse it; None when
    it was not compiled (or did not compile); _DECLINED when it compiled but needs the rewriter."""
    if not source.isascii() or '__' in source or 'global' in source or 'import' in source:
        return None
    try:
        code = compile(source, filename, mode, dont_inherit=True)
    except Exception:
        return None  # the full path reports it (a SandboxError may come before a SyntaxError)
    pending = [code]
    while pending:
        current = pending.pop()
        if _code_needs_rewriter(current):
            return _DECLINED
        pending.extend(const for const in current.co_consts if type(const) is _CodeType)
    return code


def compile_guarded(source, filename, mode='exec'):
    """Parses, checks, rewrites and compiles model code; SyntaxError and SandboxError propagate."""
    if isinstance(source, str):
        code = _compile_fast(source, filename, mode)
        if code is _DECLINED:
            # The fast compile already showed the source's SyntaxWarnings (invalid escapes, `is`
            # with a literal); the full path would show them a second time.
            with warnings.catch_warnings():
                warnings.simplefilter('ignore', SyntaxWarning)
                return _compile_full(source, filename, mode)
        if code is not None:
            return code
    return _compile_full(source, filename, mode)


def _compile_full(source, filename, mode):
    tree = source if isinstance(source, ast.AST) else ast.parse(source, filename, mode)
    return compile(check_tree(tree), filename, mode, dont_inherit=True)
