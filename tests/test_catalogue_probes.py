"""The generated catalogue and its probes agree with torch, and the analysis agrees with the probes.

``codemods/analysis/catalogue_table.py`` holds, for every spelling of every
aten op torch tags as data-dependent, each argument form with whether it
skips a 3-trip loop's frame. Two checks read it:

* the analysis (libcst's break reading, the text screen in front of it, and
  the ``ast`` index of the project table) finds a loop break in a module
  whose ``forward`` runs the form in a loop exactly when the probe skipped;
  this needs no torch and runs by default;
* the probes, run again on the installed torch in one fresh process, give the
  table's results, and every op torch tags has a spelling in the table
  (``-m torch_run``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from codemods.analysis import catalogue, catalogue_table
from codemods.analysis.project.index import summarise
from rewriter.engine import pipeline as engine
from rewriter.engine.config import Settings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GENERATOR = os.path.join(ROOT, "scripts", "generate_catalogue.py")
#: the rules that report a break in a loop
LOOP_RULES = ("GBF001", "GBF002")

SOURCE = """\
import operator

import torch


class Probe(torch.nn.Module):
    def forward(self, x, m, i, r, a, b, lp, tg, o):
        for _ in range(3):
            y = {form}
            x = x * 2
        return x, y
"""


def _probe_id(probe: dict) -> str:
    return probe["form"]


def _found(form: str) -> tuple[bool, bool]:
    """(the engine reports a loop break, the project index marks ``forward`` as breaking)."""
    text = SOURCE.format(form=form)
    settings = Settings(select=LOOP_RULES, torch_only=False, reach="all")  # type: ignore[arg-type]
    outcome = engine.transform_source(text, "probe.py", settings)
    summary = summarise(text, "probe.py", "probe")
    assert summary is not None
    forward = next(unit for unit in summary.units if unit.qualname == "Probe.forward")
    return bool(outcome.findings), forward.direct is not None


@pytest.mark.parametrize("probe", catalogue_table.PROBES, ids=_probe_id)
def test_the_analysis_finds_what_the_probe_skipped(probe: dict) -> None:
    engine_found, index_found = _found(probe["form"])
    assert engine_found == probe["skips"], f"the engine {'misses' if probe['skips'] else 'reports'} {probe['form']}"
    assert index_found == probe["skips"], f"the index {'misses' if probe['skips'] else 'marks'} {probe['form']}"


def test_every_entry_has_a_probe_that_skips() -> None:
    skipping = {p["spelling"] for p in catalogue_table.PROBES if p["skips"] and p["reaches"]}
    written = {
        e["name"] if e["kind"] != "method" else f"torch.Tensor.{e['name']}"
        for e in catalogue_table.ENTRIES
        if e["kind"] != "mask_index"
    }
    assert written == skipping - {"x[mask]"}
    assert {e["name"] for e in catalogue_table.ENTRIES if e["kind"] == "mask_index"} == {catalogue.MASK_INDEX.name}


def test_every_tagged_op_is_reached_by_a_probe() -> None:
    reached = {op for p in catalogue_table.PROBES for op in p["reaches"]}
    # item's op runs as _local_scalar_dense, argwhere's as nonzero, one_hot's reads the maximum,
    # _unique as _unique2, unique_dim_consecutive as unique_consecutive: composite ops dispatch their parts
    composite = {"item", "argwhere", "one_hot", "_unique", "unique_dim_consecutive"}
    assert set(catalogue_table.TAGGED_OPS) - composite <= reached


def test_removing_an_entry_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The analysis check fails when a generated entry is gone."""
    from codemods.analysis.breaks import cst as breaks

    form = "m.nonzero(as_tuple=True)[0]"
    assert _found(form) == (True, True)
    without = {name: entry for name, entry in catalogue.BY_METHOD.items() if name != "nonzero"}
    monkeypatch.setattr(catalogue, "BY_METHOD", without)
    assert not breaks.method_entry("nonzero", True)
    assert _found(form)[0] is False


@pytest.mark.torch_run
def test_the_probes_give_the_tables_results() -> None:
    """One fresh process runs every probe on the installed torch; the table must say the same."""
    done = subprocess.run(
        [sys.executable, GENERATOR, "--json"], capture_output=True, text=True, cwd=ROOT, timeout=600, check=True
    )
    measured = json.loads(done.stdout)
    assert measured["version"] == catalogue_table.TORCH_VERSION, "torch changed: run scripts/generate_catalogue.py"
    assert {op: tuple(tags) for op, tags in measured["tagged"].items()} == catalogue_table.TAGGED_OPS
    stored = {(p["spelling"], p["form"]): (tuple(p["reaches"]), p["skips"]) for p in catalogue_table.PROBES}
    fresh = {(p["spelling"], p["form"]): (tuple(p["reaches"]), p["skips"]) for p in measured["probes"]}
    changed = {
        key: (stored.get(key), fresh.get(key))
        for key in stored.keys() | fresh.keys()
        if stored.get(key) != fresh.get(key)
    }
    assert not changed, textwrap.indent("\n".join(map(str, changed.items())), "  ")
