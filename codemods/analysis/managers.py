"""Does entering a context manager do anything outside the manager object itself?

Splitting a ``with`` around a graph break (GBF003, the guide's recipe) enters
a new manager after the break and runs the break outside both. That is
exact when entering and exiting the manager has no effect anyone else can
see: the manager is made in the ``with`` line (no ``as`` target, so nothing
else holds it), and its class, defined in the file, only stores values in
its own attributes. The guide's own ``CustomCtxManager`` is such a class:

    class CustomCtxManager:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

:func:`effect_free_manager` reads the class: a plain class (no base but
``object``, no decorator, no metaclass); ``__enter__`` and ``__exit__``
defined, with ``__init__`` the only other special method; each of these
three holds only assignments to attributes of ``self`` of values made of
constants, its parameters and attributes of ``self`` (no call, no
operator, which may run code), ``pass``, a docstring and ``return`` (of
``self``, ``None`` or ``False`` in ``__enter__``; of ``None`` or ``False``
in ``__exit__``, which then lets every exception through). Anything else,
printing, appending to a module-level list, reading a clock, setting a
global flag, is an effect the split would repeat or move, and the class is
not effect-free.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.analysis.nodes import body_statements

#: the special methods a ``with`` runs on a manager made in its line
_WITH_METHODS = frozenset({"__init__", "__enter__", "__exit__"})
_CONSTANTS = (cst.Integer, cst.Float, cst.SimpleString)


def effect_free_manager(cls: cst.ClassDef) -> Optional[str]:
    """Why entering ``cls()`` may have an effect outside the object; None when it has none."""
    name = cls.name.value
    if cls.decorators or cls.keywords:
        return f"`{name}` is decorated or has a metaclass"
    if any(not (isinstance(base.value, cst.Name) and base.value.value == "object") for base in cls.bases):
        return f"`{name}` has a base class, whose methods may do anything"
    methods: dict[str, cst.FunctionDef] = {}
    for stmt in body_statements(cls.body):
        if isinstance(stmt, cst.FunctionDef):
            methods[stmt.name.value] = stmt
        elif not _docstring_or_pass(stmt):
            return f"`{name}` runs code in its class body"
    if "__enter__" not in methods or "__exit__" not in methods:
        return f"`{name}` does not define `__enter__` and `__exit__` itself"
    special = sorted(m for m in methods if m.startswith("__") and m.endswith("__") and m not in _WITH_METHODS)
    if special:
        return f"`{name}` defines `{special[0]}`"
    for method in _WITH_METHODS & set(methods):
        why = _method_effect(methods[method])
        if why:
            return f"`{name}.{method}` {why}"
    return None


def _docstring_or_pass(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(_no_op(small) for small in stmt.body)


def _no_op(small: cst.BaseSmallStatement) -> bool:
    """``pass``, a docstring, ``...`` (what a skeleton leaves of a blanked docstring)."""
    return isinstance(small, cst.Pass) or (
        isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.Ellipsis))
    )


def _method_effect(func: cst.FunctionDef) -> str:
    """What in ``func`` may act outside the object: "" for nothing."""
    if func.decorators or func.asynchronous is not None:
        return "is decorated or asynchronous"
    params = func.params
    positional = [*params.posonly_params, *params.params]
    if not positional:
        return "takes no `self`"
    own = positional[0].name.value
    names = {p.name.value for p in (*positional, *params.kwonly_params)}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    defaults = [p.default for p in (*positional, *params.kwonly_params) if p.default is not None]
    if not all(_plain_value(default, own, set()) for default in defaults):
        return "has a default value that is not a constant"  # a shared object the method may store
    returned = {"self", "None", "False"} if func.name.value == "__enter__" else {"None", "False"}
    for stmt in body_statements(func.body):
        if not isinstance(stmt, cst.SimpleStatementLine):
            return "holds a compound statement"
        for small in stmt.body:
            if _no_op(small):
                continue
            if isinstance(small, cst.Return):
                value = small.value
                if value is None:
                    continue
                written = "self" if isinstance(value, cst.Name) and value.value == own else _name(value)
                if written not in returned:
                    return "returns something other than " + " or ".join(sorted(returned))
                continue
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
                if not all(_own_attribute(t, own) for t in targets):
                    return "stores outside its own attributes"
                if small.value is not None and not _plain_value(small.value, own, names):
                    return "computes a value that may run code"
                continue
            return "does more than store its own attributes"
    return ""


def _name(node: cst.BaseExpression) -> str:
    return node.value if isinstance(node, cst.Name) else ""


def _own_attribute(target: cst.BaseExpression, own: str) -> bool:
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == own


def _plain_value(value: cst.BaseExpression, own: str, names: set[str]) -> bool:
    """Constants, parameters, ``None``/``True``/``False``, attributes of ``self`` and tuples of these."""
    if isinstance(value, _CONSTANTS):
        return True
    if isinstance(value, cst.Name):
        return value.value in names or value.value in ("None", "True", "False")
    if isinstance(value, cst.Attribute):
        return _own_attribute(value, own)
    if isinstance(value, cst.Tuple):
        return all(
            not isinstance(element, cst.StarredElement) and _plain_value(element.value, own, names)
            for element in value.elements
        )
    return False
