"""benchmarks/timing_table.py: one row per rewritten model and mode, the interleaved ratio, and a
ratio above the limit marked as a cost (exit 1)."""

from __future__ import annotations

import json
import os
import sys

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
sys.path.insert(0, BENCH)

import timing_table  # noqa: E402


def _document(name: str, before: float, after: float, changed: bool) -> dict:
    side = {
        "changed_files": ["m.py"] if changed else [],
        "pair_before_compiled_s": before,
        "pair_after_compiled_s": after,
    }
    settings = {"backend": "inductor", "size": "medium", "device": "cpu"}
    return {
        "meta": {"gbfix": "abc1234", "date": "2026-12-07 16:00 UTC", "settings": settings},
        "models": [{"name": name, "after": {"static": side}}],
    }


def test_rows_ratios_and_costs(tmp_path) -> None:
    paths = []
    for name, before, after, changed in (("fast", 0.2, 0.18, True), ("slow", 0.1, 0.11, True), ("same", 1, 1, False)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(_document(name, before, after, changed)))
        paths.append(str(path))
    code = timing_table.main([*paths, "--results", str(tmp_path)])
    assert code == 1  # "slow" costs
    rows = json.loads((tmp_path / "timing-medium.json").read_text())
    assert [row["model"] for row in rows] == ["fast", "slow"]  # "same" changed nothing
    assert abs(rows[0]["ratio"] - 0.9) < 1e-9 and not rows[0]["costs"]
    assert abs(rows[1]["ratio"] - 1.1) < 1e-9 and rows[1]["costs"]
    text = (tmp_path / "timing-medium.md").read_text()
    assert "| slow | static | 100.0 | 110.0 | 1.10 (costs) |" in text
