"""A third-party module whose forward does not break: nothing to do."""
import torch
from thirdparty_pkg import Quiet

GOLDEN_KIND = "strict"

quiet = Quiet()


@torch._dynamo.error_on_graph_break(True)
def infer(x):
    return quiet(x) * 2


ENTRY = infer


def example_inputs():
    return (torch.randn(3),)
