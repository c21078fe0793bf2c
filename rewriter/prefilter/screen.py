"""The prefilter's verdict on one file: which rules may report something, and on how much of it.

libcst parsing costs about ten times Python's own parser, and the scope and
qualified-name metadata the rules need several times more, while most of a
real repository holds nothing any rule acts on. So each file goes through
cheap stages first, and libcst sees only what survives them. Each rule says
what it needs in one value, ``Rule.PREFILTER`` (:class:`codemods.rules.base.Prefilter`):

1. Text (:func:`text_could_match`). The rule's ``words`` must be written
   somewhere, and one of the lines holding them match its ``pattern``; a
   rule about graph breaks (``needs_break``) also needs a call of the break
   catalogue. A rule that declares ``holders`` is screened by the words of
   those statements (``while(x):`` has no ``while `` in it) and by the call
   pattern of :mod:`rewriter.prefilter.text`.
2. Structure (:func:`structure_could_match`, on
   :class:`rewriter.prefilter.facts.ScreenFacts`). ``holders``: the body of
   such a loop/``with``/``try`` inside a function holds a call that may
   break; ``calls``: a call of, say, ``torch.compile``; ``compiled_output``: an
   output call that compiled code may reach. A rule that declares
   nothing gets every file: the prefilter never guesses for a rule. Rules
   that pass run; the others would find nothing here.
3. Functions. When every rule that passed declares ``holders``, or
   ``compiled_output`` in a file that compiles nothing and sets no Dynamo
   option (its fixes are then guards around the calls), libcst gets a
   skeleton of the file (:mod:`rewriter.prefilter.skeleton`): the same
   lines, with what cannot matter blanked.

tests/test_screen.py runs the engine with and without the prefilter on the
golden corpus and on generated files and requires the same results;
tests/test_prefilter_agrees.py requires that it marks every break the libcst
analysis finds. A catalogue entry of a kind the prefilter does not model
turns the structural stages off.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from codemods.analysis.catalogue import CATALOGUE, MATCH_KINDS, SCREEN_TOKENS
from codemods.analysis.reach import ProjectFacts
from codemods.rules.base import Prefilter, Rule
from codemods.rules.registry import REGISTRY
from rewriter.prefilter.facts import OPENING_WORD, OUTPUT_KIND, ScreenFacts
from rewriter.prefilter.skeleton import FileView, build_skeleton
from rewriter.prefilter.text import has_word

#: the structural stage is sound only for the catalogue kinds it models
SOUND = all(entry.kind in MATCH_KINDS for entry in CATALOGUE)


@dataclass(frozen=True)
class Screening:
    """What libcst must see of a file: nothing, a skeleton, or all of it."""

    parse: bool
    #: the skeleton libcst is shown; None: the whole file
    skeleton: Optional[FileView] = None
    #: the rules that may report something (the others need not run); () = all
    codes: tuple[str, ...] = ()
    #: why Python's own parser rejects the file, when libcst would be shown it
    python_error: Optional[Exception] = None


def text_could_match(text: str, code: str, facts: Optional[ScreenFacts] = None) -> bool:
    """Stage 1 for one rule: its own words, and a catalogue call if it needs a break.

    A rule that declares ``holders`` is screened by the words of those
    statements instead of its words, and its need for a break by the call
    pattern (``x.item ()`` has no ``.item(`` in it).
    """
    needs = REGISTRY[code].PREFILTER
    if needs.recorded_only:
        return False  # a file with a recording is parsed whole before any rule is screened
    if SOUND and needs.holders:
        # the words that open each holder kind (``while(x):`` has no space after the word)
        if not any(has_word(text, OPENING_WORD[kind]) for kind in needs.holders):
            return False
    elif needs.words and not any(token in text for token in needs.words):
        return False
    if needs.pattern and not _line_matches(text, needs.words, _regex(needs.pattern)):
        return False
    if not needs.needs_break:
        return True
    if SOUND:
        return (facts or ScreenFacts(text)).may_break_at_all()
    return any(t in text for t in SCREEN_TOKENS)


@lru_cache(maxsize=None)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _line_matches(text: str, words: Sequence[str], regex: re.Pattern[str]) -> bool:
    """Whether a line of ``text`` that holds one of ``words`` (any line, without words) matches ``regex``."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not words:
        return any(regex.search(line) for line in text.split("\n"))
    for word in words:
        at = text.find(word)
        while at != -1:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end == -1 else end
            if regex.search(text[start:end]):
                return True
            at = text.find(word, end)
    return False


def structure_could_match(rule: type[Rule], facts: ScreenFacts) -> bool:
    """Stage 2 for one rule: whether a file could hold a finding of it, judged from Python's parse.

    Saying False for a file the rule would report on is a bug; a rule that
    declares nothing gets every file.
    """
    needs = rule.PREFILTER
    if needs.holders and not facts.holds_break(needs.holders):
        return False
    if needs.calls and not any(facts.calls(name, needs.call_decorators) for name in needs.calls):
        return False
    if needs.compiled_output and not facts.may_output_in_compiled_code():
        return False
    return True


def screen(
    text: str,
    codes: Iterable[str],
    focus: Optional[Sequence[tuple[int, int]]] = None,
    tree: Optional[ast.Module] = None,
    project: Optional[ProjectFacts] = None,
) -> Screening:
    """Whether any of ``codes`` may report something in ``text``, and on how much of it.

    ``focus`` (line ranges) limits a skeleton to the functions that overlap
    them; with none there, nothing needs parsing. ``tree``: Python's parse
    of ``text``, when the caller has it. ``project``: what the scanned tree
    says about the file (a loop in a function compiled code never reaches
    holds no finding; a call into another file may break).
    """
    facts = ScreenFacts(text, tree, project)
    passed = [
        code
        for code in codes
        if text_could_match(text, code, facts) and (not SOUND or structure_could_match(REGISTRY[code], facts))
    ]
    if not passed:
        return Screening(parse=False)
    if not SOUND:
        return Screening(parse=True, python_error=facts.python_error())
    if "\r" in text or not all(_stays_in_functions(REGISTRY[code].PREFILTER, facts) for code in passed):
        return Screening(parse=True, codes=tuple(passed), python_error=facts.python_error())
    if facts.python_error() is not None:
        return Screening(parse=True, codes=tuple(passed), python_error=facts.python_error())
    kinds = {kind for code in passed for kind in _kinds(REGISTRY[code].PREFILTER)}
    if focus is not None and not facts.candidate_units(kinds, focus):
        return Screening(parse=False)
    return Screening(parse=True, skeleton=build_skeleton(facts, kinds, focus), codes=tuple(passed))


def _stays_in_functions(needs: Prefilter, facts: ScreenFacts) -> bool:
    """Whether a rule's findings and fixes in this file stay inside the functions holding its candidates."""
    if needs.holders:
        return True
    return needs.compiled_output and facts.output_stays_in_functions()


def _kinds(needs: Prefilter) -> tuple[str, ...]:
    """The candidate kinds a skeleton keeps the functions of, for one rule."""
    return needs.holders or ((OUTPUT_KIND,) if needs.compiled_output else ())


def python_error(text: str) -> Optional[Exception]:
    """Why Python's own parser rejects ``text``; None if it does not (see :meth:`ScreenFacts.python_error`)."""
    return ScreenFacts(text).python_error()
