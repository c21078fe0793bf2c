"""A strict inference function calling a third-party encoder built at module level."""
import torch
from thirdparty_pkg import Encoder

GOLDEN_KIND = "strict"

torch.manual_seed(0)
encoder = Encoder(8)  # from a library
encoder.forward = torch._dynamo.error_on_graph_break(False)(encoder.forward)


@torch._dynamo.error_on_graph_break(True)
def infer(x):
    h = x * 2
    return encoder(h) + 1


ENTRY = infer


def example_inputs():
    return (torch.randn(3, 8),)
