"""A third-party function whose body calls `.item()`: wrapped after its import."""
import torch
from thirdparty_pkg import scale
scale = torch._dynamo.error_on_graph_break(False)(scale)

GOLDEN_KIND = "strict"


@torch._dynamo.error_on_graph_break(True)
def normalise(x):
    y = torch.relu(x)
    return scale(y) - 0.5


ENTRY = normalise


def example_inputs():
    return (torch.randn(4, 4),)
