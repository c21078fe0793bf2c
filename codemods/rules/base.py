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
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Collection, Iterator, Optional, Sequence, Union

import libcst as cst
from libcst.codemod import Codemod, CodemodContext
from libcst.metadata.base_provider import ProviderT

from codemods.analysis.breaks.cst import BreakProvider, BreakReason, BreakSite, find_breaks
from codemods.analysis.causes import CauseAnalysis, analyse_causes, cause_removes
from codemods.analysis.fix_safety import FixMode, Safety
from codemods.analysis.helper_layout import SpaceHelpers
from codemods.analysis.helper_names import NameAllocator, RenumberHelpers
from codemods.analysis.names.bindings import DeclareHelperNonlocals
from codemods.analysis.reach import (
    NO_FACTS,
    Evidence,
    ProjectFacts,
    Reach,
    ReachMode,
    evidence_meets,
    unit_names,
)
from codemods.analysis.tensors.cst import FunctionTensors, FunctionTensorsProvider, TensorFacts, inline_tensor_ops
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider

#: the evidence ``apply`` acts on unless told otherwise (README, "Evidence"; measured there)
DEFAULT_EVIDENCE: Evidence = "forward"


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
    #: a fix that ``--unsafe-fixes`` would make instead, and why it is unsafe
    unsafe_alternative: str = ""
    #: why the site runs under compile: the chain of calls from an entry (rules limited to reach)
    reach: str = ""
    #: how strong the belief that the site costs compiled work is (:data:`EVIDENCE_LEVELS`);
    #: "" for advice and findings that do not depend on reach
    evidence: str = ""


@dataclass(frozen=True)
class Example:
    """A documented before/after pair; ``after=None`` means "left unchanged"."""

    before: str
    after: Optional[str]
    #: ``[tool.gbfix]`` settings the example runs with (``Settings`` field -> value)
    config: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Prefilter:
    """What a file must show before a rule can find anything in it, judged without libcst.

    The prefilter reads this; saying less than the rule needs only costs
    time, saying more than it needs is a bug (a finding is missed).
    """

    #: plain-text fragments; a file holding none of them cannot match the rule
    words: tuple[str, ...] = ()
    #: the rule is about graph breaks, so a file must mention a catalogue call
    needs_break: bool = True
    #: statement kinds ("for", "while", "with", "try") of which one, inside a
    #: function, must hold a call that may break in its body (a ``while``
    #: condition, a ``with`` manager's ``__enter__`` or ``__exit__`` count
    #: too). Declaring it also says the rule's findings and fixes stay inside
    #: the function holding that statement, so libcst may be shown only the
    #: functions that can matter, and the words of these statements stand in
    #: for ``words``.
    holders: tuple[str, ...] = ()
    #: qualified names ("torch.compile") of which the file must call one with an argument
    calls: tuple[str, ...] = ()
    #: whether a call of one of ``calls`` written as a decorator counts
    call_decorators: bool = True
    #: the rule acts on output calls (``print``, ``warnings.warn``, logging) in compiled code:
    #: some ``forward`` of the file, or any function when the file names ``compile``, must
    #: reach one (:meth:`rewriter.prefilter.facts.ScreenFacts.may_output_in_compiled_code`).
    #: Declaring it also says that in a file that compiles nothing and sets no Dynamo option,
    #: the rule's findings and fixes stay inside the functions that reach such a call.
    compiled_output: bool = False
    #: the rule acts only on what a real run recorded in the file: without a recording nothing matches
    recorded_only: bool = False
    #: a regular expression one line of the file holding one of ``words`` must match
    pattern: str = ""


@dataclass(frozen=True)
class RuleSettings:
    """What rules read from a run's configuration (``[tool.gbfix]`` and flags), as plain data.

    The engine's ``Settings`` extends this, so each field is declared once.
    """

    fix_mode: FixMode = "safe"
    unroll_max_trips: int = 16
    reentrant_context_managers: tuple[str, ...] = ("contextlib.nullcontext",)
    #: top-level packages that are / are not part of the project (GBF007)
    first_party: tuple[str, ...] = ()
    third_party: tuple[str, ...] = ()
    #: third-party callables known to graph-break (``pkg.mod.Class``; a prefix covers a package)
    breaking_third_party: tuple[str, ...] = ()
    #: the same, as recorded by a real run (filled from a trace)
    recorded_third_party: frozenset[str] = frozenset()
    #: "compiled": findings only in code compiled code reaches; "all": everywhere
    reach: ReachMode = "compiled"
    #: functions compiled by code outside the scanned files (``Class.method``, ``FILE:Class.method``)
    compiled: tuple[str, ...] = ()
    #: the weakest evidence (:data:`EVIDENCE_LEVELS`) on which a finding's fix is applied; None:
    #: :data:`DEFAULT_EVIDENCE`, or "none" with ``reach = "all"`` (which lints and fixes everywhere)
    evidence: Optional[Evidence] = None

    @property
    def least_evidence(self) -> Evidence:
        """The weakest evidence a fix is applied on in this run."""
        if self.evidence is not None:
            return self.evidence
        return "none" if self.reach == "all" else DEFAULT_EVIDENCE


@dataclass(frozen=True)
class RecordedSkip:
    """A frame of a file that a real run ran eagerly: what GBF011 reports when nothing else explains it."""

    #: the code object's first line (decorators included); for a resume
    #: function (``torch_dynamo_resume_in_forward_at_79``), the line it resumes at
    line: int
    #: Dynamo's name for the frame
    name: str
    #: the break that made Dynamo give up, and where it was
    reason: str
    #: only the rest of the frame, from a break on, ran eagerly
    partial: bool = False


@dataclass(frozen=True)
class RuleOptions(RuleSettings):
    """Everything a rule may depend on on one file: the run's settings and the file's own facts.

    Plain data, so it crosses processes.
    """

    #: lines of this file a real run recorded as graph breaks
    recorded_break_lines: frozenset[int] = frozenset()
    #: frames of this file a real run ran eagerly
    recorded_skips: frozenset[RecordedSkip] = frozenset()
    #: function key -> names a real run read as tensors there (:mod:`codemods.analysis.tensors.recorded`)
    recorded_tensors: dict[str, frozenset[str]] = field(default_factory=dict)
    #: line -> codes suppressed there (empty set: every code)
    suppressions: dict[int, frozenset[str]] = field(default_factory=dict)
    #: rule codes that are active in this run (see ``Rule.DEFERS_TO``)
    selected: frozenset[str] = frozenset()
    #: packages found under this directory (outside site-packages) are first-party
    project_root: str = ""
    #: the number the next generated helper name gets (:mod:`codemods.analysis.helper_names`)
    first_helper_number: int = 1
    #: what the scanned tree says about this file: reach, breaks behind calls into other files
    project: ProjectFacts = NO_FACTS

    @classmethod
    def for_file(cls, settings: RuleSettings, **facts: Any) -> "RuleOptions":
        """The run's ``settings`` (or anything extending them) with one file's ``facts``."""
        shared = {f.name: getattr(settings, f.name) for f in fields(RuleSettings)}
        return cls(**shared, **facts)


#: what positions count as a line end
_LINE_ENDS = re.compile(r"\r\n|\r|\n")
#: statements whose finding a suppression on one of their breaks also covers
_HOLDERS = (cst.For, cst.While, cst.With, cst.Try, cst.TryStar)


class Rule(Codemod, cst.CSTTransformer):
    """Base class of every gbfix rule.

    Subclasses set ``CODE``, ``NAME``, ``SUMMARY``, ``EXAMPLES`` and write
    their docs in the module docstring (``gbfix rules CODE`` prints it).
    """

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    SUMMARY: ClassVar[str]
    EXAMPLES: ClassVar[tuple[Example, ...]] = ()
    #: what a file must show, cheaply, before libcst is paid for (read by the prefilter)
    PREFILTER: ClassVar[Prefilter] = Prefilter()
    #: the rule's hooks are on statements and blocks only: the walk does not
    #: enter expressions or simple lines (libcst rebuilds every node it enters)
    STATEMENTS_ONLY: ClassVar[bool] = True
    #: codes of rules this one leaves some of its sites to, when they are active
    #: (:meth:`defers_to`); ``gbfix rules`` and the registry's tests read it
    DEFERS_TO: ClassVar[tuple[str, ...]] = ()
    #: the rule acts only in functions compiled code reaches (:meth:`reach`), unless ``reach = "all"``
    REACH_LIMITED: ClassVar[bool] = False
    #: the rule reports and never rewrites: its examples show findings, not fixes
    REPORTS_ONLY: ClassVar[bool] = False
    #: the rule's findings are advice on where ``torch.compile`` is placed, not graph breaks
    ADVICE: ClassVar[bool] = False
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (LazyPositionProvider,)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.STATEMENTS_ONLY:
            # libcst's own no-op hooks are inherited by every transformer: only the rules' count
            own = {name for klass in cls.__mro__ if issubclass(klass, Rule) for name in vars(klass)}
            unreachable = sorted(name for name in own if _hook_never_called(name))
            if unreachable:
                raise TypeError(
                    f"{cls.__qualname__} defines {', '.join(unreachable)}, but with STATEMENTS_ONLY "
                    "the walk never enters expressions or simple statements: set STATEMENTS_ONLY = False"
                )

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        Codemod.__init__(self, context)
        cst.CSTTransformer.__init__(self)
        self.options = options
        self.names = NameAllocator(options.first_helper_number)
        self.findings: list[Finding] = []
        self.used_suppressions: set[int] = set()
        #: how compiled code reaches the function being walked (set by rules limited to reach)
        self.current_reach: Optional[Reach] = None
        self._tree: Optional[cst.Module] = None
        self._units: Optional[dict[int, tuple[str, cst.FunctionDef]]] = None
        self._lines: Optional[list[str]] = None

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        self._tree, self._units, self._lines = tree, None, None
        new = self.transform(tree)
        if any(finding.applied for finding in self.findings):
            # Helpers made for different statements may share a name no statement left binds.
            new = new.visit(DeclareHelperNonlocals())
            new = new.visit(RenumberHelpers(self.options.first_helper_number, self.names.next))
            new = new.visit(SpaceHelpers())
        return new

    def transform(self, tree: cst.Module) -> cst.Module:
        """The rule's own rewrite of ``tree`` (its findings recorded on the way)."""
        return tree.visit(self)

    def on_visit(self, node: cst.CSTNode) -> bool:
        descend = super().on_visit(node)
        # A simple line's own leave_ hook still runs; only what is inside it is skipped.
        return descend and (not self.STATEMENTS_ONLY or type(node) in walk.STATEMENT_HOLDERS)

    # -- reach ----------------------------------------------------------------------
    def reach(self, func: cst.FunctionDef) -> Optional[Reach]:
        """How ``func`` can run under ``torch.compile``; None when nothing compiled calls it.

        ``func`` is any ``def`` of the tree being transformed; a nested one
        answers for the function (not nested in another) that holds it. The
        answer comes from the scanned tree (``RuleOptions.project``): a module's
        ``forward``, a function passed to or decorated with ``torch.compile``,
        or something they call, in any file. A function holding a line a real
        run recorded as a break counts too. With ``reach = "all"`` every
        function answers (with its chain when compiled code reaches it).
        """
        found = self.unit_of(func)
        if found is None:
            return None
        qualname, unit = found
        reach = self.options.project.reach(qualname)
        if self._recorded_in(unit):
            if reach is None:
                return Reach("a run recorded a graph break in it", (qualname,), "recorded")
            return replace(reach, evidence="recorded")
        return reach

    def _recorded_in(self, unit: cst.FunctionDef) -> bool:
        """Whether a recorded run (``--trace``/``--log``) saw a graph break or a skipped frame
        within ``unit`` (a function not nested in another, its nested ones included)."""
        options = self.options
        if not options.recorded_break_lines and not options.recorded_skips:
            return False
        span = self.get_metadata(LazyPositionProvider, unit)
        lines = (*options.recorded_break_lines, *(skip.line for skip in options.recorded_skips))
        return any(span.start.line <= line <= span.end.line for line in lines)

    def reach_at(self, node: cst.CSTNode) -> Optional[Reach]:
        """:meth:`reach` of the function (not nested in another) that holds ``node``; None outside one."""
        if self._units is None:
            self._units = unit_names(self._tree) if self._tree is not None else {}
        line = self.line_of(node)
        for _, unit in self._units.values():
            span = self.get_metadata(LazyPositionProvider, unit)
            if span.start.line <= line <= span.end.line:
                return self.reach(unit)
        return None

    def unit_of(self, func: cst.FunctionDef) -> Optional[tuple[str, cst.FunctionDef]]:
        """(qualified name, node) of the function not nested in another that holds ``func``."""
        if self._units is None:
            self._units = unit_names(self._tree) if self._tree is not None else {}
        return self._units.get(id(func))

    def defers_to(self, code: str) -> bool:
        """Whether ``code`` (declared in ``DEFERS_TO``) is active, so the sites it handles are its own."""
        if code not in self.DEFERS_TO:
            raise ValueError(f"{self.CODE} asks about {code}, which is not in its DEFERS_TO")
        return code in self.options.selected

    def suppressed_for(self, code: str, node: cst.CSTNode) -> bool:
        """Whether a ``# gbfix: ignore`` comment on ``node``'s line stops rule ``code`` there."""
        codes = self.options.suppressions.get(self.line_of(node)) if self.options.suppressions else None
        return codes is not None and (not codes or code in codes)

    # -- reporting --------------------------------------------------------------
    def line_of(self, node: cst.CSTNode) -> int:
        return self.get_metadata(LazyPositionProvider, node).start.line

    def start_of(self, node: cst.CSTNode) -> tuple[int, int]:
        """``node``'s first line and column (from 0), as positions count them."""
        start = self.get_metadata(LazyPositionProvider, node).start
        return start.line, start.column

    def source_lines(self) -> list[str]:
        """The lines of the tree being transformed, split where positions count a line end."""
        if self._lines is None:
            self._lines = _LINE_ENDS.split(self._tree.code) if self._tree is not None else []
        return self._lines

    def report(
        self,
        node: cst.CSTNode,
        message: str,
        fix: Safety,
        note: str = "",
        also_lines: tuple[int, ...] = (),
        unsafe_alternative: str = "",
        reach: Optional[Reach] = None,
        evidence: str = "",
    ) -> bool:
        """Record a finding at ``node``; True when its fix should be applied now.

        ``also_lines`` are other lines whose suppression comment covers this
        finding (the header of the loop/with/try that holds the break). A
        finding reported on a loop/with/try statement is also covered by a
        comment on the line of a break that statement holds. ``reach`` says how the
        site runs under compile, for a rule not limited to reach (the finding carries it);
        its evidence decides, with ``--evidence``, whether the fix is applied. ``evidence``
        names the level where no reach says it (a recorded skip).
        """
        pos = self.get_metadata(LazyPositionProvider, node).start
        if self.options.suppressions:
            also_lines = (*also_lines, *self._held_break_lines(node))
        for line in (pos.line, *also_lines):
            codes = self.options.suppressions.get(line)
            if codes is not None and (not codes or self.CODE in codes):
                self.used_suppressions.add(line)
                return False
        apply = (fix == "safe" and self.options.fix_mode in ("safe", "unsafe")) or (
            fix == "unsafe" and self.options.fix_mode == "unsafe"
        )
        if reach is None and self.REACH_LIMITED:
            reach = self.current_reach
        chain = reach.describe() if reach is not None else ""
        evidence = evidence or (reach.evidence if reach is not None and not self.ADVICE else "")
        least = self.options.least_evidence
        if apply and evidence and not evidence_meets(evidence, least):
            # Reported as found; rewritten only on the evidence the run asks for.
            apply = False
            weak = (
                f"not rewritten: evidence `{evidence}` is weaker than `{least}` (`--evidence {evidence}` rewrites it)"
            )
            note = f"{note}; {weak}" if note else weak
        self.findings.append(
            Finding(self.CODE, pos.line, pos.column + 1, message, fix, apply, note, unsafe_alternative, chain, evidence)
        )
        return apply

    def makes_output_calls(self) -> bool:
        """Whether the break analysis found an output call (``print``, a logging call…) made
        directly somewhere in the file: what GBF010 acts on. Needs :class:`BreakProvider`."""
        return any(
            isinstance(node, cst.Call) and isinstance(reason, BreakReason) and reason.cause and not reason.via
            for node, reason in self.metadata[BreakProvider].items()
        )

    def lookup(self, node: cst.CSTNode) -> Optional[BreakReason]:
        """Why ``node`` (a call or a def) breaks, as the break analysis marks it; needs :class:`BreakProvider`."""
        return self.get_metadata(BreakProvider, node, None)

    def _held_break_lines(self, node: cst.CSTNode) -> tuple[int, ...]:
        """Lines of the breaking calls in the body of a loop/with/try ``node``
        (and in a ``while`` condition, which runs on every iteration too)."""
        if not isinstance(node, _HOLDERS) or BreakProvider not in self.get_inherited_dependencies():
            return ()
        sites = find_breaks(
            [node.test, node.body] if isinstance(node, cst.While) else [node.body],
            self.lookup,
            self.line_of,
            self.options.recorded_break_lines,
        )
        return tuple(self.line_of(site.node) for site in sites)

    @classmethod
    def applies(cls) -> bool:
        """Whether the rule can find anything on the running Python (GBF013 cannot from 3.12 on)."""
        return True

    @classmethod
    def doc(cls) -> str:
        import inspect
        import sys

        return inspect.cleandoc(sys.modules[cls.__module__].__doc__ or "")


#: what a statement-only walk reaches: statements, blocks and the parts of compound statements
_STATEMENT_LEVEL = (
    cst.Module,
    cst.BaseStatement,
    cst.BaseSuite,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Else,
    cst.Finally,
    cst.MatchCase,
)


def _hook_never_called(name: str) -> bool:
    """``visit_Call``, ``leave_Name_value``…: a hook of a node a statement-only walk never enters."""
    for prefix in ("visit_", "leave_"):
        if not name.startswith(prefix):
            continue
        parts = name[len(prefix) :].split("_")
        for end in range(len(parts), 0, -1):
            node_class = getattr(cst, "_".join(parts[:end]), None)
            if isinstance(node_class, type) and issubclass(node_class, cst.CSTNode):
                return not issubclass(node_class, _STATEMENT_LEVEL)
    return False


class FunctionScopedRule(Rule):
    """A rule that acts on statements inside function bodies only.

    At module level there is no frame for Dynamo to skip, so nothing is done
    there. ``self.functions`` is the stack of enclosing (original) defs.
    Functions compiled code does not reach are not entered (:meth:`Rule.reach`).
    """

    REACH_LIMITED = True
    METADATA_DEPENDENCIES: ClassVar[Collection[ProviderT]] = (LazyPositionProvider, FunctionTensorsProvider)

    def __init__(self, context: CodemodContext, options: RuleOptions) -> None:
        super().__init__(context, options)
        #: None marks a class body: its statements run in no function frame
        self.functions: list[Optional[cst.FunctionDef]] = []
        self._module: Optional[cst.Module] = None
        self._causes: Optional[CauseAnalysis] = None

    def visit_Module(self, node: cst.Module) -> None:
        super().visit_Module(node)
        self._module = node
        #: the classes around the current statement, innermost last
        self._classes: list[cst.ClassDef] = []

    def method_class(self) -> Optional[cst.ClassDef]:
        """The class the enclosing function is a method of, if it is one."""
        return self._classes[-1] if len(self.functions) >= 2 and self.functions[-2] is None else None

    def _tensors(self) -> FunctionTensors:
        assert self._module is not None
        return self.get_metadata(FunctionTensorsProvider, self._module)

    def tensor_facts(self, func: cst.FunctionDef) -> TensorFacts:
        """What the expressions of ``func`` (the enclosing original function) are."""
        return self._tensors().facts(func, self.method_class())

    def inline_ops(self, func: cst.FunctionDef, within: Optional[cst.CSTNode] = None) -> int:
        """Tensor ops written in ``func`` itself (the enclosing original function): what a fix can
        capture; with ``within`` (a node of ``func``), only those written there."""
        if within is not None:
            return inline_tensor_ops(self.tensor_facts(func), [within])
        return self._tensors().inline_ops(func, self.method_class())

    def skip_message(self, holder: str, func: cst.FunctionDef, sites: Sequence[BreakSite], where: str = "") -> str:
        """A finding's message: the break in ``holder`` (``a loop``), the frame it skips, and the
        inline tensor work lost there; ``where`` stands for the first break when given."""
        if not where:
            where = f"{sites[0].reason.describe()}, line {self.line_of(sites[0].node)}"
        ops = self.inline_ops(func)
        work = f" and its {ops} inline tensor op{'s' if ops != 1 else ''}" if ops else ""
        return f"graph break inside {holder} ({where}) makes Dynamo skip `{func.name.value}`{work}"

    def nothing_to_capture(self, func: cst.FunctionDef) -> str:
        """Why a fix would capture nothing in ``func``, or "" when it would capture something.

        A skipped frame loses only the tensor ops written in it: the modules
        and functions it calls compile as frames of their own either way.
        """
        if self.inline_ops(func):
            return ""
        return (
            f"nothing to capture: `{func.name.value}` runs no tensor op of its own "
            "(the modules and functions it calls compile as frames of their own either way)"
        )

    def removed_by_cause(self, site: BreakSite) -> bool:
        """Whether GBF010, active in this run, removes this break at its cause (the site is its own).

        Only an output call made right there is GBF010's (a call of a helper
        that prints is not): its analysis runs the first time such a site is asked about.
        """
        if not site.reason.cause or site.reason.via or not self.defers_to("GBF010"):
            return False
        fix_mode = self.options.fix_mode

        def suppressed(node: cst.CSTNode) -> bool:
            return self.suppressed_for("GBF010", node)

        return cause_removes(self.cause_analysis(), site.node, fix_mode, suppressed)

    def cause_analysis(self) -> CauseAnalysis:
        """GBF010's analysis of the module's output calls (made the first time it is asked for)."""
        if self._causes is None:
            assert self._module is not None
            options = self.options
            recorded = options.recorded_break_lines

            def suppressed(node: cst.CSTNode) -> bool:
                return self.suppressed_for("GBF010", node)

            self._causes = analyse_causes(
                self._module, self.lookup, self.line_of, recorded, options.fix_mode, suppressed
            )
        return self._causes

    def breaks_in(self, nodes: Sequence[cst.CSTNode]) -> list[BreakSite]:
        """The breaks in ``nodes`` this rule fixes (GBF010's, when active, are left to it)."""
        sites = find_breaks(nodes, self.lookup, self.line_of, self.options.recorded_break_lines)
        return [site for site in sites if not self.removed_by_cause(site)]

    def on_visit(self, node: cst.CSTNode) -> bool:
        descend = super().on_visit(node)
        # Rebuilding code that cannot hold a finding only costs time: every
        # finding of these rules sits on a break in a function's own code, as
        # the break analysis marks them.
        if descend and isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return self._may_act_in(node)
        return descend

    def _may_act_in(self, node: Union[cst.FunctionDef, cst.ClassDef]) -> bool:
        """Whether a finding may be in ``node``: a function compiled code reaches with a
        break (or a nested definition), a class with such a method."""
        if isinstance(node, cst.FunctionDef) and self.options.project.limits:
            unit = self.unit_of(node)
            if unit is not None and unit[1] is node and self.reach(node) is None:
                return False
        if BreakProvider not in self.get_inherited_dependencies() or self.options.recorded_break_lines:
            return True
        if isinstance(node, cst.FunctionDef) and self.lookup(node) is not None:
            return True
        nested = _definitions_in(node)
        if isinstance(node, cst.FunctionDef):
            return next(nested, None) is not None
        return any(self._may_act_in(d) for d in nested)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if all(f is None for f in self.functions):
            self.current_reach = self.reach(node)
        self.functions.append(node)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.functions.append(None)
        self._classes.append(node)

    def leave_ClassDef(self, original_node: cst.ClassDef, updated_node: cst.ClassDef) -> cst.ClassDef:
        self.functions.pop()
        self._classes.pop()
        return updated_node

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        self.functions.pop()
        return updated_node

    @property
    def enclosing(self) -> Optional[cst.FunctionDef]:
        return self.functions[-1] if self.functions else None


_DEFINITIONS = walk.node_types(cst.FunctionDef, cst.ClassDef)


def _definitions_in(node: cst.CSTNode) -> Iterator[Union[cst.FunctionDef, cst.ClassDef]]:
    """The ``def`` and ``class`` statements in ``node``'s blocks, not those nested in them
    (expressions are not entered)."""
    stack: list[cst.CSTNode] = [node.body]  # type: ignore[attr-defined]
    while stack:
        for child in walk.children(stack.pop()):
            if type(child) in _DEFINITIONS:
                yield child  # type: ignore[misc]
            elif type(child) in walk.STATEMENT_HOLDERS:
                stack.append(child)
