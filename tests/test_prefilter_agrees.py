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
from codemods.analysis.catalogue import MASK_INDEX
from codemods.analysis.project.index import summarise
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


# -- the project index reads ``x[mask]`` as the file's analysis does -----------------------------


def _masks_by_the_file(text: str) -> set[int]:
    """Lines of the subscripts the libcst analysis reads as indexing by a boolean mask."""
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)
    return {
        positions[node].start.line
        for node, reason in breaks.items()
        if isinstance(node, cst.Subscript) and reason is not None and reason.reason == MASK_INDEX.reason
    }


def _masks_by_the_index(text: str) -> set[int]:
    """Lines the project index gives as a unit's first break, where that break is a mask read."""
    summary = summarise(text, "/m.py", "m")
    assert summary is not None
    return {unit.direct[2] for unit in summary.units if unit.direct and unit.direct[0] == MASK_INDEX.reason}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "golden")))
def test_the_index_reads_a_mask_only_where_the_file_does(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert _masks_by_the_index(text) <= _masks_by_the_file(text)


MASK_MODULE = """\
import torch


class M(torch.nn.Module):
    def forward(self, x, m, n: int, cfg=None):
        keep = x > 0
        {form}
        return x


def pad(x, amounts):
    return x[amounts > 0]


def caller(t: torch.Tensor):
    return pad(t, t)
"""
MASK_FORMS = {
    # read through a mask: both find it
    "y = x[x > 0]": True,
    "y = x[keep]": True,
    "y = x[~keep]": True,
    "y = x[keep & (x < 3)]": True,
    "y = x[x.isfinite()]": True,
    "y = x[torch.isnan(x)]": True,
    "x[x > 0] += 1": True,
    "y = (x * 2)[x != 0]": True,
    # not a mask, or not read: neither does
    "y = x[0]": False,
    "y = x[m]": False,  # a parameter: what it holds is not known
    "y = x[n > 0]": False,  # an int compared: a Python bool
    "x[x > 0] = 0": False,  # an index_put
    "y = x[keep, 0]": False,  # a tuple index
    "y = x[1:keep]": False,
    "y = [v for v in x[x > 0]]": True,
    "y = {'a': 1}[cfg is None]": False,
}


@pytest.mark.parametrize("form", sorted(MASK_FORMS))
def test_the_index_and_the_file_agree_on_a_mask_form(form: str) -> None:
    text = MASK_MODULE.format(form=form)
    line = 7
    by_file, by_index = _masks_by_the_file(text), _masks_by_the_index(text)
    assert (line in by_file) == MASK_FORMS[form], f"the file's analysis on {form}"
    assert (line in by_index) == (line in by_file), f"the index on {form}"
    # a helper handed a tensor by a caller of the file indexes by a mask of it, in both readings
    assert 12 in by_file and 12 in by_index


def test_the_mask_comparison_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """An index that stopped reading bool methods would be caught."""
    from codemods.analysis.tensors import ast as tensors_ast

    text = MASK_MODULE.format(form="y = x[x.isfinite()]")
    assert 7 in _masks_by_the_index(text)
    monkeypatch.setattr(tensors_ast, "BOOL_METHODS", frozenset())
    assert 7 not in _masks_by_the_index(text) and 7 in _masks_by_the_file(text)


def test_a_loop_calling_a_mask_read_in_another_file_is_found(tmp_path) -> None:
    from rewriter.engine.batch import build_project
    from rewriter.engine.config import Settings
    from rewriter.engine.pipeline import transform_source

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    util, model = tmp_path / "pkg" / "util.py", tmp_path / "pkg" / "model.py"
    util.write_text("import torch\n\n\ndef positives(x: torch.Tensor):\n    return x[x > 0].sum()\n")
    model.write_text(
        "import torch\n\nfrom pkg.util import positives\n\n\nclass Model(torch.nn.Module):\n"
        "    def forward(self, x):\n        for i in range(3):\n            x = x + positives(x)\n        return x\n"
    )
    settings = Settings(cache=False)
    project = build_project([str(util), str(model)], settings, jobs=1)
    outcome = transform_source(model.read_text(), str(model), settings, project.facts_for(str(model)))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF001", 8)]
    assert "indexing with a boolean mask" in outcome.findings[0].message


SUBMODULE_CASES = ("class_table_submodule", "class_alias_submodule", "appended_submodules")


@pytest.mark.parametrize("case", SUBMODULE_CASES)
def test_the_three_readings_agree_on_submodules_built_through_names(case: str) -> None:
    """A submodule built through a table of classes (``TYPES[kind](...)``), a local name
    (``cls = A if c else B``) or ``self.layers.append(cls(i))``: the file's own analysis, the
    screen and the project index each find that ``Model.forward``'s loop calls a breaking class."""
    from codemods.analysis.project.link import Project

    with open(os.path.join(ROOT, "golden", "GBF002", f"{case}.in.py"), encoding="utf-8") as handle:
        text = handle.read()
    loop = text.splitlines().index("        for layer in self.layers:") + 1
    forward = loop - 2
    functions, blocks = _analysis(text)
    assert forward in functions and ("for", loop) in blocks
    facts = ScreenFacts(text)
    assert forward in set(facts.breaking_functions()) and ("for", loop) in set(facts.candidates())
    summary = summarise(text, "/m.py", "m")
    assert summary is not None
    project = Project([summary])
    breaking = {project.units[index][1].qualname for index in project._breaks()}
    assert "Model.forward" in breaking
