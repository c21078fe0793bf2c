"""Outside a strict region (or inside `error_on_graph_break(False)`) a break is allowed."""
import torch
from thirdparty_pkg import Encoder

GOLDEN_KIND = "strict"

encoder = Encoder()


def infer(x):
    with torch._dynamo.error_on_graph_break(True):
        y = x + 1
        with torch._dynamo.error_on_graph_break(False):
            y = encoder(y)
    return encoder(y)


ENTRY = infer


def example_inputs():
    return (torch.randn(2, 8),)
