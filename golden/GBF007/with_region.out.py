"""A `with error_on_graph_break(True)` block; the module is built just before it."""
import torch
from thirdparty_pkg.layers import Block

GOLDEN_KIND = "strict"


def run(x):
    block = Block(8)
    block.forward = torch._dynamo.error_on_graph_break(False)(block.forward)
    with torch._dynamo.error_on_graph_break(True):
        y = block(x)
        y = y * 3
    return y.sum(-1)


ENTRY = run


def example_inputs():
    return (torch.randn(2, 8),)
