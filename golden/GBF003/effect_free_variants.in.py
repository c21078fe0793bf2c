"""Managers whose entry and exit store only their own attributes (a name, a depth, a copy of a
parameter): the guide's split is safe, re-entering one is invisible, and a break that is the
block's only statement leaves the block (with nothing else left, the manager is not entered)."""
import logging

import torch

logger = logging.getLogger(__name__)


class Section:
    """A named section."""

    def __init__(self, name, depth=None):
        self.name = name
        self.depth = depth

    def __enter__(self):
        self.active = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self.active = False


def sections(x: torch.Tensor):
    h = x.sin()
    with Section("encode", 1):
        h = h * 2
        logger.info("encoded %s", h.shape)
    with Section("decode"):
        print("decoding", h.dtype)
        h = h.exp()
    with Section("report"):
        torch._dynamo.graph_break()
    return h.cos()


ENTRY = sections


def example_inputs():
    return (torch.randn(4),)
