"""The golden corpus: exact rewrites, idempotence, and real torch.compile runs."""

from __future__ import annotations

import os

import pytest

from rewriter.runtime.measure import (
    first_difference,
    measure,
    resolve_entry,
    run_eager,
    seed_everything,
)
from rewriter.runtime.verify import compare_outputs, judge
from tests.golden import Case, cases, load, rewrite
from tests.golden_placement import check_case, golden_kind, use_fixture_packages

# GBF007 cases import a fake third-party package; gbfix finds it on sys.path.
use_fixture_packages()

CASES = cases()


def _ids(case: Case) -> str:
    return str(case)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_rewrite_matches_expected(case: Case, regen_golden: bool) -> None:
    produced = rewrite(case)
    if regen_golden:
        if produced != case.source:
            with open(case.output_path, "w", encoding="utf-8") as handle:
                handle.write(produced)
        elif os.path.exists(case.output_path):
            os.remove(case.output_path)  # the case now stays unchanged
        return
    expected = case.expected
    if expected is None:
        assert produced == case.source, "a must-not-change case was changed"
    else:
        assert produced == expected


@pytest.mark.parametrize("case", [c for c in CASES if c.expected is not None], ids=_ids)
def test_rewrite_is_idempotent_and_compiles(case: Case) -> None:
    expected = case.expected
    assert expected is not None
    compile(expected, case.output_path, "exec")
    assert rewrite(case, expected) == expected


def _run(path: str, source: str, tag: str):
    module = load(path, source, tag)
    fn = resolve_entry(module.ENTRY)
    seed_everything(1)
    args = module.example_inputs()
    return module, fn, args


@pytest.mark.torch_run
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_golden_under_torch_compile(case: Case) -> None:
    if golden_kind(case) is not None:
        # Placement cases skip no frame: they check their own properties.
        check_case(case)
        return
    module, before_fn, args = _run(case.input_path, case.source, "before")
    reference = run_eager(before_fn, args)
    out_before, before = measure(before_fn, args)
    assert first_difference(reference, out_before) is None
    expected = case.expected
    if expected is None:
        return
    after_module, after_fn, after_args = _run(case.output_path, expected, "after")
    out_eager_after = run_eager(after_fn, after_args)
    out_after, after = measure(after_fn, after_args)
    # The comparisons and verdict of `gbfix verify`, in process.
    outputs = {
        "eager(before)": reference,
        "compiled(before)": out_before,
        "eager(after)": out_eager_after,
        "compiled(after)": out_after,
    }
    # Recompiles aside: per-trip helpers still recompile once per trip kind (an int that turns
    # dynamic, a shape); `gbfix verify` fails them, and each case prints its count here.
    print(f"{case}: recompiles {before.recompiles} -> {after.recompiles} {after.recompiles_by_frame}")
    assert judge(before, after, compare_outputs(outputs, "eager"), recompiles=False) == []
    assert before.frames_skipped > 0, "the input case should skip a frame"
    want = getattr(module, "EXPECT_SKIPPED_AFTER", 0)
    assert after.frames_skipped <= want, after.skip_reasons
    # What is still skipped is a helper gbfix made (or a resume function inside
    # one), never the user's own function.
    assert all("_gbfix_" in name for name in after.skipped_functions), after.skipped_functions
    assert after.ops >= before.ops
    assert after.graphs > before.graphs or after.ops > before.ops
    # Graph coverage, counted as `gbfix verify` counts it, never falls.
    assert before.coverage is not None and after.coverage is not None
    assert after.coverage >= before.coverage, (before.describe_coverage(), after.describe_coverage())


#: a few cases through `gbfix verify` itself: subprocesses, import hook, CLI. Rewrites whose
#: per-trip helpers recompile fail it (see test_verify_costs.py); these cost nothing new.
COSTLESS = ("GBF004/log_tail_to_else", "GBF004/int_of_mask_sum_hoisted", "GBF003/reference_split")
VERIFY_CASES = [c for c in CASES if str(c) in COSTLESS]


@pytest.mark.torch_run
@pytest.mark.parametrize("case", VERIFY_CASES, ids=_ids)
def test_gbfix_verify_passes_on_golden(case: Case, tmp_path) -> None:
    import json
    import shutil
    import subprocess
    import sys

    shutil.copy(case.input_path, tmp_path / "original.py")
    shutil.copy(case.output_path, tmp_path / "case.py")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "rewriter",
            "verify",
            "case.py",
            "--entry",
            "case:ENTRY",
            "--inputs",
            "case:example_inputs",
            "--before",
            "original.py",
            "--device",
            "cpu",
            "--rounds",
            "0",
            "--json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["passed"] and all(c["equal"] for c in report["comparisons"])
    before, after = report["before"]["stats"], report["after"]["stats"]
    assert after["frames_skipped"] <= before["frames_skipped"] and after["graphs"] > before["graphs"]
