"""The project index's reach never misses what a file's own libcst reading sees compiled.

Two answers to "does compiled code reach this function?" live in
:mod:`codemods.analysis.project`: the index (``index.py`` + ``link.py``, stdlib
``ast``, across files) and one file's own reading (``compiled_code.py``,
libcst: its entries, the ``forward`` of every class with a base, and what
they call in the file). The index follows more (constructors called in
compiled code, dispatch tables, a manager's ``__enter__``), so on every file
it must reach at least what the file's reading reaches: a function it
missed would be a finding lost under ``reach = "compiled"``. Checked on
every file of the golden corpus, and on real trees (each installed package
below, linked as one project).
"""

from __future__ import annotations

import glob
import importlib.util
import os

import libcst as cst
import pytest

from codemods.analysis.project.compiled_code import find_compiled_code
from codemods.analysis.reach import unit_names
from rewriter.engine.batch import build_project
from rewriter.engine.config import Settings
from rewriter.engine.project import file_facts

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = sorted(glob.glob(os.path.join(ROOT, "golden", "**", "*.py"), recursive=True))
#: real trees: packages whose model code compiles (a few folders of each, to keep the run short)
TREES = {"transformers": ("models/llama", "models/bert", "models/t5"), "diffusers": ("models/unets",)}
SETTINGS = Settings(reach="compiled", cache=False)


def _reached_by_the_file(text: str) -> set[str]:
    """Qualified names of the units the file's own libcst reading finds under compile."""
    module = cst.parse_module(text)
    units = unit_names(module)
    return {units[node][0] for node in find_compiled_code(module).reached if node in units}


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: os.path.relpath(p, os.path.join(ROOT, "golden")))
def test_the_index_reaches_what_the_file_alone_reaches(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    index = set(file_facts(text, os.path.abspath(path), SETTINGS).units)
    assert _reached_by_the_file(text) <= index


def test_the_comparison_can_fail() -> None:
    """A file whose forward calls a helper: the index reaches both; drop the helper and the check sees it."""
    text = (
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return helper(x)\n\n\n"
        "def helper(x):\n    return x\n"
    )
    index = set(file_facts(text, "/m.py", SETTINGS).units)
    assert _reached_by_the_file(text) == index == {"M.forward", "helper"}
    assert not _reached_by_the_file(text) <= index - {"helper"}


@pytest.mark.corpus
@pytest.mark.parametrize("package", sorted(TREES))
def test_a_real_tree_linked_as_one_project(package: str) -> None:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.skip(f"{package} is not installed")
    top = list(spec.submodule_search_locations)[0]
    paths = sorted(
        p for folder in TREES[package] for p in glob.glob(os.path.join(top, folder, "**", "*.py"), recursive=True)
    )
    project = build_project(paths, SETTINGS, jobs=1)
    missed, compared = {}, 0
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        own = _reached_by_the_file(text)
        compared += len(own)
        lost = own - set(project.facts_for(os.path.abspath(path)).units)
        if lost:
            missed[os.path.relpath(path, top)] = sorted(lost)
    assert compared > 5 and missed == {}
