"""Data-dependent forms the catalogue was not built from, each measured: does ``gbfix scan`` find them?

Each program is a module whose ``forward`` holds one data-dependent form in a
3-trip loop (or, for the controls, a form that does not skip). On torch 2.13
every program of :data:`SKIPPING` skips the frame and none of
:data:`NOT_SKIPPING` does (``-m torch_run`` measures it again); the scan,
with its default settings, must report each of the first and none of the
second.
"""

from __future__ import annotations

import pytest
from probe_run import skipped_frames

from rewriter.engine import pipeline as engine
from rewriter.engine.config import Settings

SOURCE = """\
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x):{body}        return x
"""

SKIPPING = {
    "masked_select_method": """
        for i in range(3):
            keep = x > i
            x = x + x.masked_select(keep).mean()
""",
    "unique_inverse_method": """
        for i in range(3):
            labels = (x * (i + 1)).round()
            uniq, inverse = labels.unique(sorted=True, return_inverse=True)
            x = x + uniq.sum() + inverse.float().mean()
""",
    "torch_equal_break": """
        prev = x
        for i in range(3):
            x = torch.tanh(x)
            if torch.equal(prev, x):
                break
            prev = x
""",
    "allclose_convergence": """
        for i in range(3):
            new = torch.tanh(x) * 1.5
            if torch.allclose(new, x, atol=1e-4):
                break
            x = new
""",
    "one_hot_without_classes": """
        for i in range(3):
            labels = (x.abs() * (i + 1)).long()
            x = x + F.one_hot(labels).float().sum()
""",
    "repeat_interleave_lengths_method": """
        for i in range(3):
            lengths = (x > i).long() + 1
            x = x + x.repeat_interleave(lengths, dim=0).mean()
""",
    "while_norm_in_loop": """
        for i in range(3):
            y = x * (i + 2)
            while y.norm() > 1.0:
                y = y / 2
            x = x + y
""",
    "bool_of_all_in_or": """
        done = False
        for i in range(3):
            x = x * 1.5
            done = done or bool((x > 5).all())
""",
    "ternary_max_scale": """
        for i in range(3):
            scale = 2.0 if x.max() > 3 else 1.0
            x = x * scale - i
""",
    "isnan_any_or": """
        for i in range(3):
            if x.isnan().any() or i > 5:
                x = torch.nan_to_num(x)
            x = x * 2
""",
    "int_count_nonzero": """
        for i in range(3):
            n = int(torch.count_nonzero(x > i))
            x = x * (n + 1)
""",
    "nonzero_rows_method_tuple": """
        for i in range(3):
            rows, = (x > i).nonzero(as_tuple=True)
            x = x + rows.float().sum()
""",
    "unique_consecutive_counts_fn": """
        for i in range(3):
            _, counts = torch.unique_consecutive((x > i).long(), return_counts=True)
            x = x + counts.float().mean()
""",
    "not_all_finite_value": """
        for i in range(3):
            bad = not torch.isfinite(x).all()
            x = x * 2 + float(i)
""",
}

NOT_SKIPPING = {
    "guarded_by_is_compiling": """
        for i in range(3):
            if not torch.compiler.is_compiling() and (x == 0).all():
                x = x + 1
            x = x * 2
""",
    "assert_positive": """
        for i in range(3):
            assert (x > -100).all()
            x = x * 2
""",
    "repeat_interleave_int": """
        for i in range(3):
            x = x.repeat_interleave(2, dim=0)[: x.shape[0]] + i
""",
    "one_hot_with_classes": """
        for i in range(3):
            labels = (x.abs() * (i + 1)).long().clamp(max=7)
            x = x + F.one_hot(labels, num_classes=8).float().sum()
""",
    "static_shape_branch": """
        for i in range(3):
            if x.shape[0] > 2:
                x = x * 2
""",
    "and_value_right": """
        for i in range(3):
            flag = i > 0 and (x > 0).any()
            x = x * 2
""",
    "where_three": """
        for i in range(3):
            x = torch.where(x > i, x, -x) + 1
""",
    "while_tensor_no_loop": """
        y = x
        while (y > 1).any():
            y = y * 0.5
        x = x + y
""",
    "repeat_interleave_output_size": """
        for i in range(3):
            counts = torch.ones_like(x, dtype=torch.long)
            x = x + torch.repeat_interleave(x, counts, output_size=4).sum()
""",
}


def _findings(body: str) -> list:
    return list(engine.transform_source(SOURCE.format(body=body), "model.py", Settings()).findings)


@pytest.mark.parametrize("name", sorted(SKIPPING))
def test_scan_finds_the_form(name: str) -> None:
    assert _findings(SKIPPING[name]), name


@pytest.mark.parametrize("name", sorted(NOT_SKIPPING))
def test_scan_reports_nothing_on_a_control(name: str) -> None:
    assert not _findings(NOT_SKIPPING[name]), name


def _skipped(body: str) -> int:
    return skipped_frames(SOURCE.format(body=body))


@pytest.mark.torch_run
@pytest.mark.parametrize("name", sorted(SKIPPING))
def test_the_form_skips_the_frame(name: str) -> None:
    assert _skipped(SKIPPING[name]) == 1


@pytest.mark.torch_run
@pytest.mark.parametrize("name", sorted(NOT_SKIPPING))
def test_the_control_does_not(name: str) -> None:
    assert _skipped(NOT_SKIPPING[name]) == 0
