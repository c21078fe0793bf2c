"""The file has no `import torch`: one is added for the wrap."""
from __future__ import annotations

from torch import manual_seed, randn
from torch._dynamo import error_on_graph_break
from thirdparty_pkg import Encoder

GOLDEN_KIND = "strict"

manual_seed(0)
encoder = Encoder()


@error_on_graph_break(True)
def infer(x):
    return encoder(x).abs()


ENTRY = infer


def example_inputs():
    return (randn(2, 8),)
