"""What the scanned tree says about one file: which of its functions can run under compile, and
which calls into other files break.

A graph break only costs something in code ``torch.compile`` runs: the
``forward`` of a module, a function passed to or decorated with
``torch.compile``, and what they call. The engine reads every file of the
scanned tree once, cheaply (``codemods/analysis/project/index.py``), links the
calls across files, and gives each file a :class:`ProjectFacts`:

* ``units``: each function or method of the file (not nested in another
  function) that compiled code reaches, with the chain of calls that
  reaches it (:class:`Reach`). A nested function counts as the function it
  is written in.
* ``external``: calls this file makes into another file of the tree, or
  into an installed package, whose callee breaks on some path
  (:class:`ExternalBreak`), keyed as :func:`call_key` spells them.

Rules ask through :meth:`codemods.rules.base.Rule.reach`; the break
analysis (:mod:`codemods.analysis.breaks.cst`) and the prefilter read
``external``. Both read the same value, so they agree by construction.

Functions are named by their qualified name in the module, classes
included and functions excluded (``Block.forward``, ``helper``,
``Outer.Inner.method``): the name survives the rewrites the rules make
(helpers are nested inside the function they came from) and the skeletons
the prefilter shows libcst (blanked functions keep their name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping, Optional, Union

import libcst as cst

from codemods.fastcst import walk

#: "compiled": only what compiled code reaches; "all": every function
ReachMode = Literal["compiled", "all"]
REACH_MODES: tuple[ReachMode, ...] = ("compiled", "all")

#: why a finding is believed to cost compiled work, strongest first: a recorded run showed its
#: frame break or skip; a ``torch.compile`` call (or a ``--compiled`` name) of the scanned tree
#: reaches it; only some module's ``forward`` reaches it (compiled if a user compiles that
#: module); nothing reaches it (``reach = "all"``)
Evidence = Literal["recorded", "entry", "forward", "none"]
EVIDENCE_LEVELS: tuple[Evidence, ...] = ("recorded", "entry", "forward", "none")


def evidence_meets(evidence: str, least: str) -> bool:
    """Whether ``evidence`` is at least as strong as ``least`` (both of :data:`EVIDENCE_LEVELS`)."""
    return EVIDENCE_LEVELS.index(evidence) <= EVIDENCE_LEVELS.index(least)


@dataclass(frozen=True)
class Reach:
    """How a function can run under ``torch.compile``: an entry, then the calls that lead here."""

    #: why the first function of ``chain`` runs under compile
    entry: str
    #: qualified names from the entry to the function, ``path:`` before a file's first
    chain: tuple[str, ...]
    #: the strongest kind of entry any chain to the function starts from (the chain is the
    #: shortest from such an entry)
    evidence: Evidence = "forward"

    def describe(self) -> str:
        """``Model.forward → Block.forward → helper (forward of an nn.Module subclass)``."""
        return f"{' → '.join(self.chain)} ({self.entry})"


@dataclass(frozen=True)
class ExternalBreak:
    """A callee in another file (or package) that breaks: the chain to the break, and where it is."""

    reason: str
    #: whether the breaking call can raise an ordinary exception (see the catalogue)
    raises: bool
    #: qualified names from the callee to the function holding the break
    via: tuple[str, ...]
    #: ``path:line`` of the breaking call
    at: str
    #: the callee's positional parameters as a call fills them (without ``self``), read with ``distinct``
    params: tuple[str, ...] = ()
    #: when not empty, the break runs only after ``a is b`` was false for a pair ``(a, b)`` of
    #: the callee's parameters: a call handing one object for both of every pair does not take it
    distinct: tuple[tuple[str, str], ...] = ()
    #: the output family (``logger``, ``print``…) when the callee's only breaks are output calls in
    #: branches of its ``if`` statements (a rare path), and nothing it calls breaks
    rare_output: str = ""


@dataclass(frozen=True)
class ProjectFacts:
    """What the scanned tree says about one file (plain data: it crosses processes)."""

    mode: ReachMode = "all"
    #: unit qualname -> how compiled code reaches it
    units: Mapping[str, Reach] = field(default_factory=dict)
    #: call key (:func:`call_key`) -> the break behind a call into another file
    external: Mapping[str, ExternalBreak] = field(default_factory=dict)
    #: some unit of ``units`` may hold a loop, ``with``, ``try`` or comprehension
    blocks: bool = True
    #: the index read the file with Python's parser (False: it rejected it, or could not read it)
    parsed: bool = True

    def reach(self, qualname: str) -> Optional[Reach]:
        """How compiled code reaches the unit ``qualname``; None when nothing does.

        With ``mode = "all"`` every unit counts, with its chain when compiled
        code reaches it and a plain note otherwise.
        """
        found = self.units.get(qualname)
        if found is not None or self.mode == "compiled":
            return found
        return Reach('reach = "all" lints every function', (qualname,), "none")

    @property
    def limits(self) -> bool:
        """Whether some function of the file may be out of reach (so some code needs no look)."""
        return self.mode == "compiled"

    @property
    def nothing_reached(self) -> bool:
        """No loop or block of the file runs under compile (so no graph-break rule finds anything)."""
        return self.limits and (not self.units or not self.blocks)

    # -- the names the prefilter reads -------------------------------------------------
    def external_names(self) -> frozenset[str]:
        """Last names of the external calls (``helper``, ``layers``, ``f`` of ``mod.f``)."""
        return frozenset(key_last_name(key) for key in self.external)


#: facts that limit nothing and know nothing outside the file: rules used on their own
NO_FACTS = ProjectFacts()


# -- call keys ---------------------------------------------------------------------------


def call_key(callee: str, cls: Optional[str]) -> Optional[str]:
    """How ``external`` spells a call of the dotted name ``callee`` made in class ``cls``'s code.

    ``helper(...)``: ``helper``; ``mod.f(...)``: ``mod.f``; ``self.x(...)``
    in a method of ``Block`` (an inherited method or a submodule):
    ``self.x@Block``; ``super().f(...)`` there: ``super().f@Block``. A call
    through a local ``x = Cls(...)`` is spelled ``x.m@Unit`` (``Unit`` the
    function it is in); the engine looks that spelling up first.
    """
    if callee.startswith(("self.", "super().")):
        return f"{callee}@{cls}" if cls else None
    return callee


def key_last_name(key: str) -> str:
    """The name written just before ``(`` in a call with this key."""
    return key.split("@", 1)[0].rpartition(".")[2]


# -- qualified names of a libcst tree ------------------------------------------------------

# Asked by type: isinstance of libcst's node classes is slow, and these walks ask it of every statement.
_COMPOUND_CLASSES = (
    cst.If,
    cst.Else,
    cst.Try,
    cst.TryStar,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.For,
    cst.While,
    cst.With,
)
_COMPOUND = walk.node_types(*_COMPOUND_CLASSES)
_DEF = walk.node_types(cst.FunctionDef)
_CLASS = walk.node_types(cst.ClassDef)
_MATCH = walk.node_types(cst.Match)


def unit_names(module: cst.Module) -> dict[int, tuple[str, cst.FunctionDef]]:
    """``id`` of every ``def`` -> (its unit's qualified name, the unit's node).

    A unit is a function or method not nested in another function; a
    nested ``def`` (or a method of a class inside a function) belongs to
    its unit. Blocks at module and class level (``if``, ``try``, ``with``,
    loops, ``match``) are looked into, as Python runs them there.
    """
    found: dict[int, tuple[str, cst.FunctionDef]] = {}
    stack: list[tuple[cst.CSTNode, str]] = [(stmt, "") for stmt in module.body]
    while stack:
        node, prefix = stack.pop()
        if type(node) in _DEF:
            assert isinstance(node, cst.FunctionDef)
            qualname = prefix + node.name.value
            found[id(node)] = (qualname, node)
            for inner in _defs_inside(node.body):
                found[id(inner)] = (qualname, node)
        elif type(node) in _CLASS:
            assert isinstance(node, cst.ClassDef)
            stack.extend((stmt, f"{prefix}{node.name.value}.") for stmt in _statements(node.body))
        else:
            stack.extend((stmt, prefix) for stmt in _nested_statements(node))
    return found


def _statements(block: Union[cst.BaseSuite, cst.CSTNode]) -> list[cst.CSTNode]:
    body = getattr(block, "body", ())
    return list(body) if isinstance(body, (list, tuple)) else []


def _nested_statements(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The statements directly inside the blocks of a compound statement (not a def or class)."""
    if type(node) in _MATCH:
        assert isinstance(node, cst.Match)
        return [stmt for case in node.cases for stmt in _statements(case.body)]
    if type(node) not in _COMPOUND:
        return []
    assert isinstance(node, _COMPOUND_CLASSES)
    parts: list[cst.CSTNode] = list(_statements(node.body))
    for name in ("orelse", "finalbody"):
        part = getattr(node, name, None)
        if part is not None:
            parts.append(part)
    parts.extend(getattr(node, "handlers", ()))
    return parts


def _defs_inside(block: cst.BaseSuite) -> list[cst.FunctionDef]:
    """Every ``def`` inside a function body, at any depth of statements (expressions hold none)."""
    found: list[cst.FunctionDef] = []
    stack: list[cst.CSTNode] = list(_statements(block))
    while stack:
        node = stack.pop()
        if type(node) in _DEF:
            assert isinstance(node, cst.FunctionDef)
            found.append(node)
            stack.extend(_statements(node.body))
        elif type(node) in _CLASS:
            assert isinstance(node, cst.ClassDef)
            stack.extend(_statements(node.body))
        else:
            stack.extend(_nested_statements(node))
    return found
