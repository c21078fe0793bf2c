"""The pure core: one file's source in, its findings and new source out.

Files go through :mod:`rewriter.prefilter.screen` first: a file no rule can match is
not parsed at all, and when every rule that may match acts inside functions
only, libcst gets a skeleton with the bodies no finding can need blanked. A
file Python's own parser rejects (a syntax error, syntax newer than this
Python, nesting deeper than it allows) is reported and never shown to libcst.
Rules run one after another on one tree. Metadata (positions, qualified
names, the break analysis) is computed once per tree and shared by every rule
until one of them changes the tree. Before a result is returned, black-style
self-checks run on any change: the new source parses and compiles, and a
second pass of the same rules over the functions it changed (as the screen
shows them) changes nothing. When a check fails the
original is kept and the failure is reported with the rule's code.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, replace
from typing import Any, Optional

import libcst as cst
from libcst.codemod import CodemodContext

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.helper_names import first_free_number
from codemods.analysis.reach import NO_FACTS, ProjectFacts
from codemods.analysis.tensors.cst import FunctionTensorsProvider
from codemods.fastcst.positions import LazyPositionProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper, all_distinct
from codemods.rules.base import Finding, RecordedSkip, RuleOptions
from codemods.rules.registry import REGISTRY
from rewriter.engine.config import Settings
from rewriter.engine.nesting import deeper_recursion
from rewriter.engine.project import file_facts, project_root
from rewriter.engine.suppressions import parse_suppressions
from rewriter.prefilter.screen import Screening, python_error, screen
from rewriter.prefilter.skeleton import FileView
from rewriter.prefilter.text import imports_torch


class SelfCheckError(Exception):
    """A rewrite failed its own checks; the file must be left as it was."""


class PythonRejects(Exception):
    """Python's own parser rejects the file, so libcst is not shown it.

    That parser bounds how deeply a file may nest, while libcst's recursive
    native parser has no bound of its own and takes the process down on a
    file deep enough (5,000 nested brackets); and a rewrite of code this
    Python cannot parse could not be checked anyway.
    """

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        #: Python's SyntaxError, RecursionError, MemoryError or ValueError
        self.error = error


@dataclass(frozen=True)
class Outcome:
    new_text: Optional[str]
    findings: tuple[Finding, ...]
    parsed: bool
    unused_suppressions: tuple[int, ...] = ()


def rule_options(settings: Settings, text: str, path: str, project: ProjectFacts = NO_FACTS) -> RuleOptions:
    return RuleOptions.for_file(
        settings,
        recorded_break_lines=settings.recorded_breaks.get(path, frozenset()),
        recorded_skips=settings.recorded_skips.get(path, frozenset()),
        recorded_tensors=settings.recorded_tensors.get(path, {}),
        suppressions=parse_suppressions(text),
        selected=frozenset(settings.active_codes),
        project_root=project_root(settings, path),
        first_helper_number=first_free_number(text),
        project=project,
    )


def _wrapper(
    module: cst.Module, options: RuleOptions, skip_copy: bool, text: Optional[str] = None
) -> ReadOnlyMetadataWrapper:
    """Metadata for ``module``; the break analysis gets the file's table of calls into other files, and
    positions the text ``module`` was parsed from, when it is that (they need generate less of it)."""
    cache: dict[Any, object] = {BreakProvider: options.project.external}
    if options.recorded_tensors:
        cache[FunctionTensorsProvider] = options.recorded_tensors
    if text is not None:
        cache[LazyPositionProvider] = text
    return ReadOnlyMetadataWrapper(module, unsafe_skip_copy=skip_copy, cache=cache)


def _run_rules(
    module: cst.Module, codes: tuple[str, ...], options: RuleOptions, path: str, text: Optional[str] = None
) -> tuple[cst.Module, list[Finding], set[int], list[str]]:
    """Each of ``codes`` in turn on ``module`` (parsed from ``text``, when given)."""
    findings: list[Finding] = []
    used: set[int] = set()
    changed_by: list[str] = []
    original = sorted(options.suppressions)
    to_original = {line: line for line in original}
    wrapper = _wrapper(module, options, True, text)
    result = module
    for index, code in enumerate(codes):
        rule = REGISTRY[code](CodemodContext(filename=path), options)
        with rule.resolve(wrapper):
            rule.context = CodemodContext(filename=path, wrapper=wrapper)
            new = rule.transform_module_impl(wrapper.module)
        findings.extend(rule.findings)
        used |= {to_original.get(line, line) for line in rule.used_suppressions}
        result = wrapper.module
        if any(f.applied for f in rule.findings):
            changed_by.append(code)
            # The names it made are in the tree now: the next rule numbers past them.
            options = replace(options, first_helper_number=rule.names.next)
            if options.recorded_break_lines:
                # The next rule sees new positions: move the recorded lines with their statements.
                moved = follow_lines(wrapper.module.code, new.code, options.recorded_break_lines)
                options = replace(options, recorded_break_lines=moved)
            if options.recorded_skips:
                options = replace(
                    options, recorded_skips=follow_skips(wrapper.module.code, new.code, options.recorded_skips)
                )
            if options.suppressions:
                # Comments move with their code: read them again at their new lines,
                # and keep knowing which original comment each one is (same order).
                options = replace(options, suppressions=parse_suppressions(new.code))
                now = sorted(options.suppressions)
                to_original = dict(zip(now, original, strict=False)) if len(now) == len(original) else {}
            result = new
            if index < len(codes) - 1:
                # A changed tree may share nodes between places: copy it for fresh
                # metadata, unless every node is in one place only (copying costs a rebuild).
                wrapper = _wrapper(new, options, all_distinct(new))
                result = wrapper.module
    return result, findings, used, changed_by


def _screen(
    text: str,
    path: str,
    settings: Settings,
    focus: Optional[list[tuple[int, int]]] = None,
    tree: Optional[ast.Module] = None,
    project: Optional[ProjectFacts] = None,
) -> Screening:
    """What libcst must see of ``text`` (rewriter.prefilter.screen); all of it when a run recorded breaks here."""
    if not settings.active_codes:
        return Screening(parse=False)
    if recorded_here(settings, path):
        return Screening(parse=True, python_error=None if tree is not None else python_error(text))
    return screen(text, settings.active_codes, focus, tree, project)


def _changed_lines(old: str, new: str) -> list[tuple[int, int]]:
    """Line ranges of ``new`` that differ from ``old``."""
    # autojunk keeps this linear-ish on files with many identical lines (a
    # 5 MB string literal); a coarser range only makes the focus wider.
    matcher = difflib.SequenceMatcher(None, old.split("\n"), new.split("\n"), autojunk=True)
    return [(j1 + 1, max(j1 + 1, j2)) for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def torch_gate(text: str, path: str, settings: Settings) -> Settings:
    """``settings`` without the graph-break rules when the file never imports torch.

    A graph break only matters in code ``torch.compile`` runs, and a file
    that never imports torch (a tokenizer, a CLI, a data script) is rarely
    that; its ``print`` in a loop is not a finding. A run that recorded a
    break in the file knows better, and ``torch_only = false`` turns the gate off.
    """
    if not settings.torch_only or recorded_here(settings, path) or imports_torch(text):
        return settings
    gated = tuple(code for code in settings.active_codes if REGISTRY[code].PREFILTER.needs_break)
    return replace(settings, ignore=settings.ignore + gated) if gated else settings


def transform_source(text: str, path: str, settings: Settings, project: Optional[ProjectFacts] = None) -> Outcome:
    """Findings and rewritten text for one file. Raises PythonRejects, ParserSyntaxError, SelfCheckError.

    ``project``: what the scanned tree says about the file (the batch links
    every file first); without it the file is its own project.
    """
    settings = torch_gate(text, path, settings)
    tree = None
    if project is None:
        tree = _parsed(text)
        project = file_facts(text, path, settings, tree)
    screening = _screen(text, path, settings, None, tree, project)
    if not screening.parse:
        # Nothing here for a rule, but a file Python rejects is bad input all the same: the
        # index parsed every file, so saying so costs a parse of the few it could not.
        error = None if project.parsed else python_error(text)
        if error is not None:
            raise PythonRejects(error)
        return Outcome(None, (), parsed=False)
    if screening.python_error is not None:
        raise PythonRejects(screening.python_error)
    # Rules the screen ruled out find nothing here, nor in what the others make of it.
    codes = screening.codes or settings.active_codes
    with deeper_recursion():
        if screening.skeleton is not None:
            outcome = _transform_view(text, path, settings, screening.skeleton, codes, project)
            if outcome is not None:
                return outcome
        outcome = _transform_view(text, path, settings, FileView.whole(text), codes, project)
    assert outcome is not None  # the whole file is always put back
    return outcome


def _parsed(text: str) -> Optional[ast.Module]:
    """Python's parse of ``text``, shared by the file's own facts and the screen; None if it fails."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _transform_view(
    text: str, path: str, settings: Settings, view: FileView, codes: tuple[str, ...], project: ProjectFacts
) -> Optional[Outcome]:
    """The rules run on ``view`` of ``text``; None when a skeleton's blanked parts cannot be put back."""
    module = cst.parse_module(view.text)
    options = rule_options(settings, view.text, path, project)
    new_module, findings, used, changed_by = _run_rules(module, codes, options, path, view.text)
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    # A skeleton blanks comments too: suppressions are the whole file's.
    unused = tuple(sorted(set(parse_suppressions(text)) - used))
    if not changed_by:
        return Outcome(None, tuple(findings), parsed=True, unused_suppressions=unused)
    new_text = view.restore(_final_line_end(view.text, new_module.code))
    if new_text is None:
        return None
    _self_check(new_text, path, _recorded_moved(settings, path, text, new_text), changed_by, text, project)
    return Outcome(new_text, tuple(findings), parsed=True, unused_suppressions=unused)


#: libcst prints a module that ends in a lone ``\r`` (a file with old Mac line ends) without it
_DROPS_FINAL_CR = cst.parse_module("x\r").code == "x"


def _final_line_end(parsed: str, printed: str) -> str:
    """``printed`` (libcst's code for a tree parsed from ``parsed``) with the last line end it dropped."""
    # libcst reads the module as having no trailing newline, so it prints the
    # last line bare whatever a rule did before it: the one "\r" goes back on.
    if _DROPS_FINAL_CR and parsed.endswith("\r"):
        return printed + "\r"
    return printed


def _self_check(
    new_text: str, path: str, settings: Settings, changed_by: list[str], old_text: str, project: ProjectFacts
) -> None:
    rules = ", ".join(changed_by)
    try:
        # Parsed once: compiled (Python's own checks beyond the grammar), and shown to the screen.
        tree = ast.parse(new_text, path)
        compile(tree, path, "exec", dont_inherit=True)
        # The second pass looks where the first one changed something: the functions
        # around the changed lines (and what they call), as the screen shows them.
        screening = _screen(new_text, path, settings, _changed_lines(old_text, new_text), tree, project)
        if not screening.parse:
            return
        new_text = screening.skeleton.text if screening.skeleton is not None else new_text
        again = cst.parse_module(new_text)
    except (SyntaxError, cst.ParserSyntaxError) as exc:
        raise SelfCheckError(f"{rules} produced code that does not parse ({exc}); file left unchanged") from None
    options = rule_options(settings, new_text, path, project)
    _, _, _, changed_again = _run_rules(again, screening.codes or settings.active_codes, options, path, new_text)
    if changed_again:
        raise SelfCheckError(
            f"{', '.join(changed_again)} would change the file again on a second run "
            f"(not idempotent); file left unchanged"
        )


def follow_lines(old: str, new: str, lines: frozenset[int]) -> frozenset[int]:
    """Where the given lines of ``old`` are in ``new``.

    Rewrites move statements into helpers (re-indented, in the same order)
    and add lines around them, so lines are followed through the blocks of
    ``old`` and ``new`` that are equal but for indentation. A line the
    rewrite changed itself is dropped: its rule has acted on it.
    """
    if not lines or old == new:
        return lines
    return frozenset(_line_map(old, new, lines).values())


def follow_skips(old: str, new: str, skips: frozenset[RecordedSkip]) -> frozenset[RecordedSkip]:
    """The recorded frames of ``old`` at their lines in ``new`` (those the rewrite changed are dropped)."""
    if not skips or old == new:
        return skips
    moved = _line_map(old, new, frozenset(s.line for s in skips))
    return frozenset(replace(s, line=moved[s.line]) for s in skips if s.line in moved)


def _line_map(old: str, new: str, lines: frozenset[int]) -> dict[int, int]:
    a = [line.strip() for line in old.splitlines()]
    b = [line.strip() for line in new.splitlines()]
    moved: dict[int, int] = {}
    for tag, i1, i2, j1, _ in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            moved.update((n, n - i1 + j1) for n in lines if i1 < n <= i2)
    return moved


def _recorded_moved(settings: Settings, path: str, old: str, new: str) -> Settings:
    lines = settings.recorded_breaks.get(path)
    skips = settings.recorded_skips.get(path)
    if lines:
        settings = replace(settings, recorded_breaks={**settings.recorded_breaks, path: follow_lines(old, new, lines)})
    if skips:
        settings = replace(settings, recorded_skips={**settings.recorded_skips, path: follow_skips(old, new, skips)})
    return settings


def recorded_here(settings: Settings, path: str) -> bool:
    """Whether a real run recorded a break, a skipped frame or a tensor read in ``path``."""
    return bool(
        settings.recorded_breaks.get(path) or settings.recorded_skips.get(path) or settings.recorded_tensors.get(path)
    )
