"""What every rule is made of: its findings, its options, its base class.

A rule is a libcst transformer. For each site it finds it calls
:meth:`Rule.report`, which records a :class:`Finding` and answers whether the
fix should be applied now (that depends on the fix's safety, the user's
``--unsafe-fixes`` and suppression comments). A rule that cannot rewrite
safely reports the site with ``fix="none"`` and the reason, and returns the
node unchanged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar, Literal, Optional

import libcst as cst
from libcst.codemod import Codemod, CodemodContext
from libcst.metadata import PositionProvider

Safety = Literal["safe", "unsafe", "none"]
FixMode = Literal["report", "safe", "unsafe"]


@dataclass(frozen=True)
class Finding:
    code: str
    line: int
    col: int
    message: str
    fix: Safety
    applied: bool = False
    #: why a fix is unsafe or was not made; shown to the user
    note: str = ""


@dataclass(frozen=True)
class Example:
    """A documented before/after pair; ``after=None`` means "left unchanged"."""

    before: str
    after: Optional[str]


@dataclass(frozen=True)
class RuleOptions:
    """Everything a rule may depend on; plain data so it crosses processes."""

    fix_mode: FixMode = "safe"
    unroll_max_trips: int = 16
    reentrant_context_managers: tuple[str, ...] = ("contextlib.nullcontext",)
    #: lines of this file a real run recorded as graph breaks
    recorded_break_lines: frozenset[int] = frozenset()
    #: line -> codes suppressed there (empty set: every code)
    suppressions: dict[int, frozenset[str]] = field(default_factory=dict)
    #: rule codes that are active in this run (rules consult each other)
    selected: frozenset[str] = frozenset()


_SUPPRESS = re.compile(r"#\s*gbfix:\s*ignore(?:\[([A-Za-z0-9_,\s]+)\])?")


def parse_suppressions(source: str) -> dict[int, frozenset[str]]:
    """``# gbfix: ignore`` / ``# gbfix: ignore[GBF001,GBF003]`` comments by line."""
    found: dict[int, frozenset[str]] = {}
    if "gbfix:" not in source:
        return found
    for number, line in enumerate(source.splitlines(), start=1):
        match = _SUPPRESS.search(line)
        if match:
            codes = match.group(1)
            found[number] = frozenset(
                c.strip().upper() for c in codes.split(",") if c.strip()
            ) if codes else frozenset()
    return found


class Rule(Codemod, cst.CSTTransformer):
    """Base class of every gbfix rule.

    Subclasses set ``CODE``, ``NAME``, ``SUMMARY``, ``EXAMPLES`` and write
    their docs in the module docstring (``gbfix rules CODE`` prints it).
    """

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    SUMMARY: ClassVar[str]
    EXAMPLES: ClassVar[tuple[Example, ...]] = ()
    #: plain-text fragments; a file holding none of them cannot match the rule
    SCREEN: ClassVar[tuple[str, ...]] = ()
    #: the rule is about graph breaks, so a file must mention a catalogue call
    NEEDS_BREAK: ClassVar[bool] = True
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        Codemod.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self.options = options
        self.findings: list[Finding] = []
        self.used_suppressions: set[int] = set()

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        return tree.visit(self)

    # -- reporting --------------------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        fix: Safety,
        note: str = "",
        also_lines: tuple[int, ...] = (),
    ) -> bool:
        """Record a finding at ``node``; True when its fix should be applied now.

        ``also_lines`` are other lines whose suppression comment covers this
        finding (the header of the loop/with/try that holds the break).
        """
        pos = self.get_metadata(PositionProvider, node).start
        for line in (pos.line, *also_lines):
            codes = self.options.suppressions.get(line)
            if codes is not None and (not codes or self.CODE in codes):
                self.used_suppressions.add(line)
                return False
        apply = (fix == "safe" and self.options.fix_mode in ("safe", "unsafe")) or (
            fix == "unsafe" and self.options.fix_mode == "unsafe"
        )
        self.findings.append(
            Finding(self.CODE, pos.line, pos.column + 1, message, fix, apply, note)
        )
        return apply

    @classmethod
    def doc(cls) -> str:
        import inspect
        import sys

        return inspect.cleandoc(sys.modules[cls.__module__].__doc__ or "")


class FunctionScopedRule(Rule):
    """A rule that acts on statements inside function bodies only.

    At module level there is no frame for Dynamo to skip, so nothing is done
    there. ``self.functions`` is the stack of enclosing (original) defs.
    """

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        super().__init__(context, options)
        #: None marks a class body: its statements run in no function frame
        self.functions: list[Optional[cst.FunctionDef]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.functions.append(None)

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        self.functions.pop()
        return updated_node

    def leave_FunctionDef(
        self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef
    ) -> cst.FunctionDef:
        self.functions.pop()
        return updated_node

    @property
    def enclosing(self) -> Optional[cst.FunctionDef]:
        return self.functions[-1] if self.functions else None
