"""A break reached from a loop in a decorated method is placed on that loop.

segment-anything's ``Sam.forward`` is decorated with ``@torch.no_grad()``, loops over the
batch and calls a prompt encoder (another file) that reads through boolean masks. Dynamo
skips ``forward``, but its record of the skip, on torch 2.13, lacks the ``forward`` frame
itself (the method runs from the decorator's wrapper): the record named no loop, and
``--trace`` reported the skip as unexplained (GBF011). The fixture under
``tests/fixtures/sam_like`` reproduces it with ``@torch.no_grad()``,
``@torch.inference_mode()`` and a ``functools.wraps`` wrapper.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rewriter.runtime.trace import parse_log_text
from tests.golden import ROOT

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "sam_like")
SAM = os.path.join(FIXTURE, "sam.py")
ENCODER = os.path.join(FIXTURE, "prompt_encoder.py")

#: Dynamo's record of the skip, as torch 2.13 writes it for the no_grad fixture (paths made
#: relative to the fixture): the user traceback goes from the decorator's wrapper straight to
#: the prompt encoder; only the stack-variable attribution names the loop of ``Sam.forward``
SKIP_RECORD = f"""\
Graph break in user code at {ENCODER}:18
Graph Break Reason: Failed to handle graph break gracefully. Skipping the function and falling back to eager. \
Graph break encountered:

Dynamic shape operator
  Explanation: Operator `aten.nonzero.default`'s output shape depends on input Tensor data.

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0036.html

*** While handling this graph break, another graph break occurred: ***

graph break in loop
  Explanation: torch.compile detected a graph break in a for/while loop.

  Developer debug context: frame skipped: forward ({SAM} line 31)

 For more details about this graph break, please visit: https://meta-pytorch.github.io/compile-graph-break-site/gb/gb7000.html

Stack variable source attribution:
  ListIteratorVariable(length=2, index=1) originated from:
  File "{SAM}", line 34
            for record in batched_input:
            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                sparse = self.prompt_encoder(record["points"], record["labels"])
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
                outputs.append(self.decoder(sparse).relu())
                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^

User code traceback:
  File "/site-packages/torch/nn/modules/module.py", line 1789, in _call_impl
    return forward_call(*args, **kwargs)
  File "/site-packages/torch/utils/_contextlib.py", line 124, in decorate_context
    return func(*args, **kwargs)
  File "{ENCODER}", line 24, in forward
    return self._embed_points(points, labels)
  File "{ENCODER}", line 18, in _embed_points
    point_embedding[labels == -1] += self.not_a_point_embed.weight
"""


def test_the_skipped_decorated_frame_is_put_back_at_its_loop() -> None:
    (site,) = parse_log_text(SKIP_RECORD)
    assert site.skipped and site.frame == "forward"
    compiled = site.user_stack[site.compiled_index or 0]
    # the frame Dynamo skipped is Sam.forward (from line 31), not the encoder's forward (line 24)
    assert (compiled.file, compiled.function, compiled.line) == (SAM, "forward", 34)
    assert [frame.function for frame in site.traced_stack] == ["forward", "forward", "_embed_points"]


def test_a_frame_already_in_the_traceback_is_not_added_twice() -> None:
    whole = SKIP_RECORD.replace(
        f'  File "{ENCODER}", line 24, in forward\n',
        f'  File "{SAM}", line 35, in forward\n    sparse = ...\n  File "{ENCODER}", line 24, in forward\n',
    )
    (site,) = parse_log_text(whole)
    expected = [("forward", 35), ("forward", 24), ("_embed_points", 18)]
    assert [(f.function, f.line) for f in site.traced_stack] == expected


@pytest.mark.torch_run
@pytest.mark.parametrize("decorator", ["no_grad", "inference_mode", "wraps"])
def test_trace_places_the_skip_on_the_loop_of_the_decorated_method(decorator: str, tmp_path) -> None:
    env = dict(os.environ, DECORATOR=decorator, TORCH_TRACE=str(tmp_path / "trace"))
    run = subprocess.run([sys.executable, "run.py"], cwd=FIXTURE, env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    scan = subprocess.run(
        [sys.executable, "-m", "rewriter", "scan", "sam.py", "--trace", str(tmp_path / "trace")],
        cwd=FIXTURE,
        capture_output=True,
        text=True,
    )
    assert scan.returncode == 1, scan.stdout + scan.stderr
    assert "sam.py:34:9: GBF002 graph break inside a loop (recorded as a graph break by a run, line 35)" in scan.stdout
    assert "GBF011" not in scan.stdout
