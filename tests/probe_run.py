"""Running a probe program under ``torch.compile``: how many frames Dynamo skips when its
``Model`` is called on a small tensor (shared by the probe tests)."""

from __future__ import annotations

import contextlib
import io


def skipped_frames(source: str) -> int:
    """Frames skipped over two calls of ``Model()`` defined by ``source``, compiled in this process."""
    import torch

    from rewriter.runtime.measure import measure

    space: dict = {}
    exec(compile(source, "<model>", "exec"), space)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        _, stats = measure(space["Model"](), (torch.tensor([1.0, 3.0, -2.0, 0.5]),), calls=2, coverage=False)
    return stats.frames_skipped
