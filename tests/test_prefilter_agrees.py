"""The prefilter's reading of the break catalogue never misses what the libcst analysis finds.

Both read :mod:`codemods.analysis.catalogue`: the libcst break analysis
resolves names, the prefilter matches last names and what is written
before them, on purpose more often. On every file of the golden corpus,
each function the analysis marks as breaking and each loop, ``with`` or
``try`` inside a function whose body holds a break it finds must be one
the prefilter marks too; one it misses would be a finding lost.
"""

from __future__ import annotations

import glob
import os

import libcst as cst
import pytest

from codemods.analysis.breaks.cst import BreakProvider, find_breaks
from codemods.fastcst.positions import LazyPositionProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper, descendants
from rewriter.prefilter.facts import ScreenFacts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = sorted(glob.glob(os.path.join(ROOT, "golden", "**", "*.py"), recursive=True))
_KINDS = {cst.For: "for", cst.While: "while", cst.With: "with", cst.Try: "try", cst.TryStar: "try"}


def _analysis(text: str) -> tuple[set[int], set[tuple[str, int]]]:
    """(def lines of breaking functions, (kind, line) of breaking blocks in functions), by libcst."""
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)

    def line(node: cst.CSTNode) -> int:
        return positions[node].start.line

    functions = {line(node) for node in breaks if isinstance(node, cst.FunctionDef)}
    blocks = set()
    for func in descendants(wrapper.module):
        if not isinstance(func, cst.FunctionDef):
            continue
        for node in descendants(func.body):
            kind = _KINDS.get(type(node))
            if kind is None:
                continue
            parts = [node.body, node.test] if isinstance(node, cst.While) else [node.body]
            if find_breaks(parts, breaks.get):
                blocks.add((kind, line(node)))
    return functions, blocks


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "golden")))
def test_the_prefilter_marks_what_the_analysis_finds(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    functions, blocks = _analysis(text)
    facts = ScreenFacts(text)
    assert functions <= set(facts.breaking_functions())
    assert blocks <= set(facts.candidates())


def test_the_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A prefilter that stopped watching a catalogue name would be caught."""
    from rewriter.prefilter import facts as facts_module

    text = "import torch\n\ndef f(x):\n    for i in range(2):\n        torch.nonzero(x)\n"
    functions, blocks = _analysis(text)
    assert blocks == {("for", 4)} and functions == {3}
    assert blocks <= set(ScreenFacts(text).candidates())
    parents = {last: parents for last, parents in facts_module.PARENTS_OF_LAST.items() if last != "nonzero"}
    monkeypatch.setattr(facts_module, "PARENTS_OF_LAST", parents)
    monkeypatch.setattr(facts_module, "SCREEN_WATCHED_NAMES", facts_module.SCREEN_WATCHED_NAMES - {"nonzero"})
    assert not blocks <= set(ScreenFacts(text).candidates())
