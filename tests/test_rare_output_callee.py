"""The smallest fix first, for a loop that calls a function of another file whose only break is an
output call on a rare path (a log for an odd argument, under an ``if``).

Dynamo traces only the branch a call takes: when the rare path is not taken, the loop compiles
into one graph; when it is, the log breaks and the frame is skipped, and a one-line guard at the log
(``if not torch.compiler.is_compiling():``) removes that break (measured below). Restructuring the
loop would move its statements into helpers for a call that seldom runs, so GBF001/GBF002 report
the loop without a fix and say where the one-line fix goes. A callee with another break, an output
call on its main path, or a callee that calls something that breaks is restructured as before.
"""

from __future__ import annotations

import logging

import pytest

from codemods.analysis.project.index import summarise

UTIL = """\
import logging

import torch

logger = logging.getLogger(__name__)


def noise_like(x, generator=None):
{body}
    return torch.randn(x.shape, generator=generator)


def count(x):
    return x.nonzero().shape[0]
"""

RARE = """\
    if generator is not None and generator.device.type != x.device.type:
        logger.info("the generator is on another device")"""

#: the callee's body -> whether the loop that calls it is left to the one-line fix
BODIES = {
    RARE: True,
    # a warning or a print under an ``if``, also in an ``else``
    '    if generator is None:\n        pass\n    else:\n        print("seeded")': True,
    '    if x.dim() > 4:\n        import warnings\n        warnings.warn("many dimensions")': True,
    # on the main path: every call logs
    '    logger.info("noise")': False,
    # another break beside the rare log
    RARE + "\n    n = x.sum().item()": False,
    # the log in the ``if`` test itself runs on every call
    '    if logger.info("noise") is None:\n        pass': False,
    # what it calls breaks
    RARE + "\n    count(x)": False,
}

MODEL = """\
import torch

from pkg.util import noise_like


class Tiles(torch.nn.Module):
    def forward(self, x):
        x = torch.tanh(x) * 2 + 1
        out = []
        for tile in x.split(2):
            tile = torch.tanh(tile) * 2 + 1
            out.append(tile + noise_like(tile))
        return torch.cat(out)
"""


def _loop_finding(tmp_path, body: str):
    from rewriter.engine.batch import build_project
    from rewriter.engine.config import Settings
    from rewriter.engine.pipeline import transform_source

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    util, model = tmp_path / "pkg" / "util.py", tmp_path / "pkg" / "model.py"
    util.write_text(UTIL.format(body=body))
    model.write_text(MODEL)
    settings = Settings(cache=False)
    project = build_project([str(util), str(model)], settings, jobs=1)
    outcome = transform_source(model.read_text(), str(model), settings, project.facts_for(str(model)))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF002", 10)]
    return outcome.findings[0], outcome.new_text is not None and outcome.new_text != MODEL


@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_rare_output_in_a_callee_gets_the_one_line_fix(tmp_path, body: str) -> None:
    finding, changed = _loop_finding(tmp_path, body)
    if BODIES[body]:
        assert finding.fix == "none" and not changed
        assert finding.note.startswith("not restructured: the only break is a ")
        assert "on a rare path of `noise_like` (under an `if` at " in finding.note
        assert "`if not torch.compiler.is_compiling():`" in finding.note
    else:
        assert finding.fix != "none" and changed, finding.note


def test_the_index_says_which_units_only_log_on_rare_paths() -> None:
    for body, rare in BODIES.items():
        summary = summarise(UTIL.format(body=body), "/util.py", "util")
        assert summary is not None
        unit = summary.units[0]
        assert unit.qualname == "noise_like" and unit.direct is not None
        # a callee that calls something breaking is told apart by the link, not the index
        assert bool(unit.rare_output) == (rare or "count(x)" in body), body


@pytest.mark.torch_run
def test_the_rare_path_as_measured() -> None:
    """Not taken: one graph. Taken: the frame is skipped. Taken with the guard: one graph."""
    import torch

    from rewriter.runtime.measure import measure

    logger = logging.getLogger("rare-output-probe")

    def noise_like(x, generator=None):
        if generator is not None:
            logger.info("a generator")
        return x * 0.5

    def guarded(x, generator=None):
        if generator is not None:
            if not torch.compiler.is_compiling():
                logger.info("a generator")
        return x * 0.5

    def tiles(x, generator=None, helper=noise_like):
        out = []
        for tile in x.split(2):
            out.append(torch.tanh(tile) + helper(tile, generator))
        return torch.cat(out)

    x, generator = torch.randn(6, 3), torch.Generator()
    _, rare = measure(tiles, (x,), coverage=False)
    _, taken = measure(tiles, (x, generator), coverage=False)
    _, fixed = measure(lambda x, g: tiles(x, g, guarded), (x, generator), coverage=False)
    assert rare.frames_skipped == 0 and rare.graphs == 1
    assert taken.frames_skipped > 0
    assert fixed.frames_skipped == 0 and fixed.graphs == 1
