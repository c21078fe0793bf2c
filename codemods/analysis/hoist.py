"""Hoisting: a value read out of a tensor on every trip, though the tensor never changes, read once.

``lengths.tolist()`` inside a list comprehension runs once per element and
breaks the graph each time; on Python 3.11 the comprehension is a frame of
its own, which Dynamo then skips (on 3.12 and later, the enclosing one).
When the tensor is not rebound or changed by the loop, the value is the
same on every trip: read before the loop into a fresh name, the break
happens once, outside any loop, where Dynamo resumes. Measured on torch
2.13 (CPU): a comprehension of ``x[i] * t.tolist()[0]`` had its frame
skipped and 27% of the ops in graphs; hoisted, no frame skipped and 78%.

What is hoisted: a call of a catalogue method that reads values out of a
tensor with no argument (``.item()``, ``.tolist()``) on a name or an
attribute chain of names. It is hoisted only when every break of the loop
or comprehension is such a call, so that none is left in it.

When it is safe:

* the receiver is not bound by the loop (its target, its body, a
  comprehension variable), not assigned to in part (``t[0] = …``,
  ``t.data = …``, ``t += …``), not changed by an in-place method
  (``t.add_(…)``), and not passed to any call of the loop, which could
  change it;
* the loop runs at least once (a non-empty literal, a constant ``range``,
  no ``if`` clause in a comprehension), since the read may raise or, on a
  GPU, wait for the device where the loop as written never read it;
* a list from ``.tolist()`` is read, never changed: it goes only into
  calls of ``torch`` or of builtins that do not change their arguments,
  into subscripts or operators, since every trip now shares one list.

Otherwise the hoist is unsafe, and the reason says which condition fails.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import libcst as cst

from codemods.analysis.breaks.cst import BreakReason
from codemods.analysis.catalogue import BY_METHOD
from codemods.analysis.frame_use import frame_refusal
from codemods.analysis.names.bindings import function_scope_use, name_use, target_names
from codemods.analysis.nodes import ITEM_BUILTINS, NESTED_SCOPES, dotted_name
from codemods.fastcst import walk

Loop = Union[cst.For, cst.While]
Comprehension = Union[cst.ListComp, cst.SetComp, cst.DictComp]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp)

#: builtins that read an argument without changing it
_READ_ONLY_BUILTINS = frozenset(
    "len tuple list zip sum max min sorted enumerate range int float bool str set frozenset dict reversed "
    "any all".split()
)
#: the catalogue methods that read values out of a tensor (``nonzero`` makes a tensor)
_READS = frozenset(name for name in BY_METHOD if name in ("item", "tolist"))


@dataclass(frozen=True)
class Read:
    """One kind of read to hoist: ``receiver.method()``, and every place it is written."""

    receiver: str
    method: str
    calls: tuple[cst.Call, ...]


@dataclass
class HoistPlan:
    reads: list[Read] = field(default_factory=list)
    #: why the hoist could change behaviour ("" when it cannot)
    unsafe: str = ""


@dataclass(frozen=True)
class HoistRefusal:
    reason: str
    #: every break is a read of a tensor's values (only their invariance failed)
    reads_only: bool = False


def _read_of(call: cst.Call, reason: Optional[BreakReason]) -> Optional[tuple[str, str]]:
    """(receiver, method) when ``call`` is a direct catalogue read such as ``t.tolist()``."""
    if reason is None or reason.via or call.args or not isinstance(call.func, cst.Attribute):
        return None
    method = call.func.attr.value
    receiver = dotted_name(call.func.value)
    if method not in _READS or receiver is None:
        return None
    return receiver, method


def plan_hoist(
    parts: Sequence[cst.CSTNode],
    breaking: Sequence[tuple[cst.CSTNode, BreakReason]],
    bound: Iterable[str],
    runs_once_at_least: bool,
    func: Optional[cst.FunctionDef] = None,
) -> Union[HoistPlan, HoistRefusal]:
    """How to hoist the breaks of a loop or comprehension made of ``parts``.

    ``breaking`` are its break sites (node, reason); ``bound`` the names it
    binds (loop targets, names bound in the body); ``func`` the function
    holding it: a hoist adds a name to its frame, and its other names for a
    receiver (``s = scale``) count as the receiver.
    """
    own = frame_refusal(func) if func is not None else ""
    if own:
        return HoistRefusal(own)
    if not breaking:
        return HoistRefusal("no break to hoist")
    reads: dict[tuple[str, str], list[cst.Call]] = {}
    for node, reason in breaking:
        read = _read_of(node, reason) if isinstance(node, cst.Call) else None
        if read is None:
            return HoistRefusal("a break in it is not a read of a tensor's values")
        reads.setdefault(read, []).append(node)  # type: ignore[arg-type]
    bound = set(bound)
    hoisted = {id(call) for calls in reads.values() for call in calls}
    local = _locals(func) if func is not None else None
    for receiver, _ in reads:
        root = receiver.split(".")[0]
        if root in bound:
            return HoistRefusal(f"`{receiver}` is rebound in it: its values may differ from trip to trip", True)
        changed = _changed_in(parts, receiver, hoisted, _aliases(func, root) if func is not None else {root})
        if not changed and local is not None and root not in local:
            changed = _outside_change(parts, root, hoisted)
        if changed:
            return HoistRefusal(f"`{receiver}` {changed} in it: its values may differ from trip to trip", True)
    plan = HoistPlan([Read(r, m, tuple(calls)) for (r, m), calls in reads.items()])
    if not runs_once_at_least:
        plan.unsafe = "it may run no trip: the read would then run once where it ran never"
    elif conditional := _first_conditional(parts, hoisted):
        plan.unsafe = (
            f"the read is {conditional}, so a trip may not make it: hoisted, it would run once where "
            "the loop as written may never read (a read can raise, or wait for the GPU)"
        )
    elif any("." in read.receiver for read in plan.reads):
        # which attributes are properties the class or a base of it may say, in another file
        dotted = next(read.receiver for read in plan.reads if "." in read.receiver)
        plan.unsafe = (
            f"`{dotted}` may be a property, whose code would then run once instead of on every trip: "
            "safe only if it is a plain attribute"
        )
    else:
        shared = [read for read in plan.reads if read.method == "tolist" and not _only_read(parts, read)]
        if shared:
            plan.unsafe = (
                f"every trip would share the list `{shared[0].receiver}.tolist()` returns: "
                "safe only if nothing changes it"
            )
    return plan


def _changed_in(parts: Sequence[cst.CSTNode], receiver: str, hoisted: set[int], aliases: set[str]) -> str:
    """How ``receiver`` may be changed within ``parts`` ("" when it is not).

    ``aliases``: names that may hold the receiver's root object or a view of
    it (the root itself, ``s = scale``, ``v = scale.view(-1)``); what changes
    one of them in place, or hands it to a call, may change the receiver. For
    a dotted receiver (``holder.scale``), a method called on an object it is
    read from (``holder.step()``) may change it too.
    """
    prefixes = _prefixes(receiver)
    others = aliases - {_root(receiver)}
    for part in parts:
        for node in walk.descendants(part):
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                target = node.target
                written = dotted_name(_stripped(target)) if isinstance(target, (cst.Subscript, cst.Attribute)) else None
                if written is not None and _overlaps(written, receiver):
                    return "is assigned to in part"
                if isinstance(target, (cst.Subscript, cst.Attribute)):
                    shared = sorted(_sources(target.value) & others)
                    if shared:
                        return f"may share its values with `{shared[0]}`, which is assigned to in part"
                updated = dotted_name(target) if isinstance(node, cst.AugAssign) else None
                if updated is not None and (updated == receiver or updated in others):
                    return "is updated in place"
            elif isinstance(node, cst.Call) and id(node) not in hoisted:
                changed = _changed_by_call(node, receiver, prefixes, others)
                if changed:
                    return changed
    return ""


def _changed_by_call(call: cst.Call, receiver: str, prefixes: set[str], others: set[str]) -> str:
    """How ``call`` may change ``receiver`` ("" when it cannot): see :func:`_changed_in`."""
    func = call.func
    if isinstance(func, cst.Attribute):
        owner, method = dotted_name(func.value), func.attr.value
        if method.endswith("_") and not method.endswith("__"):
            changed = dotted_name(_stripped(func.value))
            if changed is not None and _overlaps(changed, receiver):
                return f"is changed in place by `.{method}()`"
            shared = sorted(_sources(func.value) & others)
            if shared:
                return f"may share its values with `{shared[0]}`, which `.{method}()` changes"
        if owner is not None and (owner in prefixes or ("." in receiver and _root(owner) in others)):
            # a method of the object the receiver is read from, under any of its names
            return f"is read from `{owner}`, whose method `.{method}()` is called"
        if owner is not None and _root(owner) in others and method not in _VIEW_METHODS | _READS:
            # `steps = self.steps` then `self.tick()`: a method of an object that holds the receiver
            return f"may share its values with `{_root(owner)}`, whose method `.{method}()` is called"
    for arg in call.args:
        passed = dotted_name(arg.value)
        if passed is not None and (passed == receiver or passed in prefixes or passed in others):
            return "goes to a call that could change it"
    return ""


def _locals(func: cst.FunctionDef) -> set[str]:
    """The names of ``func``'s own frame: parameters and what it binds, not what it declares global or nonlocal."""
    use = function_scope_use(func)
    return use.bound - use.global_decl - use.nonlocal_decl


#: calls that cannot change a name of another scope
_PURE_ROOTS = frozenset({"torch", "F", "math"})


def _outside_change(parts: Sequence[cst.CSTNode], root: str, hoisted: set[int]) -> str:
    """How a name of another scope (a global, a closure's) may be changed within ``parts``: by
    any call but the hoisted reads and those of ``torch`` or of builtins that only read."""
    for part in parts:
        for node in walk.descendants(part):
            if type(node) is not cst.Call or id(node) in hoisted:
                continue
            name = dotted_name(node.func)
            if name is not None and (name in _READ_ONLY_BUILTINS or _root(name) in _PURE_ROOTS):
                continue
            called = f"`{name}()`" if name is not None else "a call"
            return f"is not a name of the function's own, and {called}, which could change it, is called"
    return ""


def _first_conditional(parts: Sequence[cst.CSTNode], hoisted: set[int]) -> str:
    """Why some hoisted read may not be made on a trip that runs ("" when each is made on every
    trip): it sits under a condition (an ``if``, a ternary, the right of ``and``/``or``, a nested
    loop, a ``try``), or a ``break``, ``continue``, ``return`` or ``raise`` may come before it."""
    for part in parts:
        exit_seen = False
        stack: list[tuple[cst.CSTNode, str, int]] = [(part, "", 0)]
        # depth-first, in source order: what comes earlier in a trip is visited first
        while stack:
            node, why, loops = stack.pop()
            kind = type(node)
            if kind is cst.Call and id(node) in hoisted:
                if why:
                    return why
                if exit_seen:
                    return "after a `break`, `continue`, `return` or `raise`"
            if kind in (cst.Return, cst.Raise) or (kind in (cst.Break, cst.Continue) and not loops):
                exit_seen = True
            if kind in NESTED_SCOPES:
                continue
            children = list(walk.children(node))
            conditional = _conditional_children(node)
            # a `break` or `continue` in a nested loop's body is that loop's
            body = node.body if kind in (cst.For, cst.While) else None  # type: ignore[attr-defined]
            for child in reversed(children):
                inner = why or ("under a condition" if id(child) in conditional else "")
                stack.append((child, inner, loops + (child is body)))
    return ""


def _conditional_children(node: cst.CSTNode) -> set[int]:
    """Ids of the children of ``node`` that a run of ``node`` may not run."""
    kind = type(node)
    if kind in (cst.If, cst.IfExp, cst.For, cst.While):
        return {id(node.body), id(node.orelse)}  # type: ignore[attr-defined]
    if kind is cst.BooleanOperation:
        return {id(node.right)}  # type: ignore[attr-defined]
    if kind in (cst.Try, cst.TryStar, cst.Match) or kind in COMPREHENSIONS or kind is cst.GeneratorExp:
        return {id(child) for child in walk.children(node)}
    return set()


def _viewed(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """What ``node`` may be a view of: ``t`` for ``t.view(-1)``, and for ``torch.narrow(t, ...)``
    (a function of ``torch`` of the same name); None when it is no such call."""
    if not isinstance(node, cst.Call):
        return None
    name = dotted_name(node.func)
    if name is not None and name.startswith("torch.") and name.count(".") == 1:
        return node.args[0].value if node.args and name[6:] in _VIEW_METHODS else None
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in _VIEW_METHODS:
        return node.func.value
    return None


def _stripped(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` without the subscripts and views around what it is read from: ``scale[0]``,
    ``scale.view(-1)[0]`` and ``scale`` all change ``scale`` when changed in place."""
    while True:
        inner = node.value if isinstance(node, cst.Subscript) else _viewed(node)
        if inner is None:
            return node
        node = inner


def _overlaps(written: str, receiver: str) -> bool:
    """Whether a write to ``written`` (a dotted name) may change what ``receiver`` reads:
    the receiver itself, a part of it, or an object it is read from (``h.scale = ...`` for ``h.scale``)."""
    return written == receiver or written.startswith(receiver + ".") or receiver.startswith(written + ".")


def _root(name: str) -> str:
    return name.split(".", 1)[0]


def _prefixes(receiver: str) -> set[str]:
    """The objects a dotted receiver is read from: ``a`` and ``a.b`` for ``a.b.c``."""
    parts = receiver.split(".")
    return {".".join(parts[:n]) for n in range(1, len(parts))}


#: tensor methods whose result may share storage with the tensor they are called on
_VIEW_METHODS = frozenset(
    {
        "view", "view_as", "reshape", "reshape_as", "expand", "expand_as", "transpose", "permute", "squeeze",
        "unsqueeze", "narrow", "select", "flatten", "unflatten", "detach", "as_strided", "t", "diagonal",
        "unfold", "split", "chunk", "unbind", "movedim", "swapaxes", "contiguous", "to", "type_as", "data",
    }
)  # fmt: skip


#: builtins whose result holds the very objects they are given
_PASSING_ITEMS = ITEM_BUILTINS | {"set", "dict"}


def _aliases(func: cst.FunctionDef, root: str) -> set[str]:
    """``root`` and the names ``func`` binds to what may share its values: the object itself
    (``s = scale``), an element, an attribute or a view of it (``v = scale.view(-1)``), an item
    of a loop over a container holding it (``for s in [scale]``), to a fixpoint over the plain
    assignments and loop targets of the function. Arithmetic makes a new tensor."""
    assigns: list[tuple[list[str], cst.BaseExpression]] = []
    for node in walk.descendants(func.body):
        if isinstance(node, cst.Assign):
            names = [n for target in node.targets for n in target_names(target.target)]
            assigns.append((names, node.value))
        elif isinstance(node, (cst.For, cst.CompFor)):
            # a loop target takes the items of its iterable: `for s in [scale]` names `scale`
            assigns.append((target_names(node.target), node.iter))
    found = {root}
    grown = True
    while grown:
        grown = False
        for names, value in assigns:
            sources = _sources(value)
            if not sources:
                continue
            if not set(names) <= found and sources & found:
                found.update(names)  # `s = scale`: `s` is the receiver's object
                grown = True
            if not sources <= found and found.intersection(names):
                found.update(sources)  # `s = ts[0]` with receiver `s`: `ts` holds it
                grown = True
    return found


def _sources(value: cst.BaseExpression) -> set[str]:
    """The names whose objects ``value`` may be, be part of, or be a view of."""
    while True:
        if isinstance(value, cst.Name):
            return {value.value}
        viewed = _viewed(value)
        if isinstance(value, (cst.Attribute, cst.Subscript)):
            value = value.value
        elif viewed is not None:
            value = viewed
        elif isinstance(value, (cst.Tuple, cst.List, cst.Set)):
            return {name for e in value.elements for name in _sources(e.value)}
        elif isinstance(value, cst.Call) and dotted_name(value.func) in _PASSING_ITEMS:
            return {name for arg in value.args for name in _sources(arg.value)}
        else:
            return set()


def _only_read(parts: Sequence[cst.CSTNode], read: Read) -> bool:
    """Every place ``read`` is written hands its list to something that only reads it."""
    parents: dict[int, cst.CSTNode] = {}
    for part in parts:
        for node in walk.descendants(part):
            for child in walk.children(node):
                parents[id(child)] = node
    for call in read.calls:
        parent = parents.get(id(call))
        if isinstance(parent, cst.Arg):
            owner = parents.get(id(parent))
            name = dotted_name(owner.func) if isinstance(owner, cst.Call) else None
            if name is None or not (name.split(".")[0] in ("torch", "F") or name in _READ_ONLY_BUILTINS):
                return False
        elif not isinstance(parent, (cst.Subscript, cst.BinaryOperation, cst.Comparison, cst.Element)):
            return False
    return True


def loop_runs_once_at_least(loop: Loop, constant: Callable[[cst.BaseExpression], Optional[cst.BaseExpression]]) -> bool:
    """A ``for`` over a non-empty literal, or over a ``range`` of constants with a trip."""
    if not isinstance(loop, cst.For):
        return False
    return iterable_runs_once_at_least(loop.iter, constant)


def iterable_runs_once_at_least(
    iterable: cst.BaseExpression, constant: Callable[[cst.BaseExpression], Optional[cst.BaseExpression]]
) -> bool:
    iterable = constant(iterable) or iterable
    if isinstance(iterable, (cst.Tuple, cst.List)):
        return bool(iterable.elements) and not any(isinstance(e, cst.StarredElement) for e in iterable.elements)
    if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "range" and 1 <= len(iterable.args) <= 3:
        bounds = [_int(constant(a.value) or a.value) for a in iterable.args]
        if any(b is None for b in bounds) or any(a.keyword or a.star for a in iterable.args):
            return False
        return len(range(*bounds)) > 0  # type: ignore[arg-type]
    return False


def _int(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _int(node.expression)
        return -inner if inner is not None else None
    return None


def comprehension_parts(comp: Comprehension) -> tuple[list[cst.CSTNode], set[str], bool]:
    """(what runs once per element, the names it binds, whether its one ``for`` has no ``if``)."""
    parts: list[cst.CSTNode] = [comp.key, comp.value] if isinstance(comp, cst.DictComp) else [comp.elt]
    bound: set[str] = set()
    clause: Optional[cst.CompFor] = comp.for_in
    first = True
    plain = comp.for_in.inner_for_in is None and not comp.for_in.ifs
    while clause is not None:
        bound.update(target_names(clause.target))
        if not first:
            parts.append(clause.iter)  # an inner iterable runs once per outer element
        parts.extend(clause.ifs)
        first = False
        clause = clause.inner_for_in
    return parts, bound, plain


def loop_parts(loop: Loop) -> tuple[list[cst.CSTNode], set[str]]:
    """(what runs on every trip, the names the loop binds)."""
    parts: list[cst.CSTNode] = [loop.body]
    bound = set(name_use([loop.body]).bound)
    if isinstance(loop, cst.While):
        parts.append(loop.test)
    else:
        bound.update(target_names(loop.target))
    return parts, bound


class ReplaceReads(cst.CSTTransformer):
    """Every call of a hoisted read becomes the name it was read into."""

    def __init__(self, names: dict[int, str]) -> None:
        super().__init__()
        self.names = names

    def on_visit(self, node: cst.CSTNode) -> bool:
        return type(node) not in NESTED_SCOPES

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        name = self.names.get(id(original_node))
        return cst.Name(name) if name is not None else updated_node


def read_statement(name: str, read: Read) -> cst.SimpleStatementLine:
    """``name = receiver.method()``, the one read before the loop."""
    receiver = cst.parse_expression(read.receiver)
    call = cst.Call(cst.Attribute(receiver, cst.Name(read.method)))
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], call)])
