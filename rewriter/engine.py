"""The pure core: one file's source in, its findings and new source out.

Rules run one after another on one tree. Metadata (positions, qualified
names, the break analysis) is computed once per tree and shared by every rule
until one of them changes the tree. Before a result is returned, black-style
self-checks run on any change: the new source parses and compiles, and a
second pass of the same rules changes nothing. When a check fails the
original is kept and the failure is reported with the rule's code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.metadata import MetadataWrapper

from codemods import REGISTRY
from codemods.base import Finding, RuleOptions, parse_suppressions
from rewriter.config import Settings
from rewriter.screen import could_match


class SelfCheckError(Exception):
    """A rewrite failed its own checks; the file must be left as it was."""


@dataclass(frozen=True)
class Outcome:
    new_text: Optional[str]
    findings: tuple[Finding, ...]
    parsed: bool
    unused_suppressions: tuple[int, ...] = ()


def rule_options(settings: Settings, text: str, path: str) -> RuleOptions:
    return RuleOptions(
        fix_mode=settings.fix_mode,
        unroll_max_trips=settings.unroll_max_trips,
        reentrant_context_managers=settings.reentrant_context_managers,
        recorded_break_lines=settings.recorded_breaks.get(path, frozenset()),
        suppressions=parse_suppressions(text),
        selected=frozenset(settings.active_codes),
    )


def _run_rules(
    module: cst.Module, codes: tuple[str, ...], options: RuleOptions, path: str
) -> tuple[cst.Module, list[Finding], set[int], list[str]]:
    findings: list[Finding] = []
    used: set[int] = set()
    changed_by: list[str] = []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    for code in codes:
        rule = REGISTRY[code](CodemodContext(filename=path), options)
        with rule.resolve(wrapper):
            rule.context = CodemodContext(filename=path, wrapper=wrapper)
            new = rule.transform_module_impl(wrapper.module)
        findings.extend(rule.findings)
        used |= rule.used_suppressions
        if any(f.applied for f in rule.findings):
            changed_by.append(code)
            # A changed tree may share nodes between places: copy for fresh metadata.
            wrapper = MetadataWrapper(new)
    return wrapper.module, findings, used, changed_by


def transform_source(text: str, path: str, settings: Settings) -> Outcome:
    """Findings and rewritten text for one file. Raises ParserSyntaxError, SelfCheckError."""
    codes = settings.active_codes
    recorded = bool(settings.recorded_breaks.get(path))
    if not codes or not (recorded or could_match(text, codes)):
        return Outcome(None, (), parsed=False)
    module = cst.parse_module(text)
    options = rule_options(settings, text, path)
    new_module, findings, used, changed_by = _run_rules(module, codes, options, path)
    findings.sort(key=lambda f: (f.line, f.col, f.code))
    unused = tuple(sorted(set(options.suppressions) - used))
    if not changed_by:
        return Outcome(None, tuple(findings), parsed=True, unused_suppressions=unused)
    new_text = new_module.code
    _self_check(new_text, path, settings, changed_by)
    return Outcome(new_text, tuple(findings), parsed=True, unused_suppressions=unused)


def _self_check(new_text: str, path: str, settings: Settings, changed_by: list[str]) -> None:
    rules = ", ".join(changed_by)
    try:
        compile(new_text, path, "exec", dont_inherit=True)
        again = cst.parse_module(new_text)
    except (SyntaxError, cst.ParserSyntaxError) as exc:
        raise SelfCheckError(f"{rules} produced code that does not parse ({exc}); file left unchanged") from None
    options = rule_options(settings, new_text, path)
    second, _, _, changed_again = _run_rules(again, settings.active_codes, options, path)
    if changed_again:
        raise SelfCheckError(
            f"{', '.join(changed_again)} would change the file again on a second run "
            f"(not idempotent); file left unchanged"
        )
