# golden: --unsafe-fixes
import warnings

import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 4


@torch.compile(backend="eager")
def clip(x):
    for _ in range(3):
        x = x * 3
        warnings.warn("values are growing")
    return x.clamp(max=10)


ENTRY = clip


def example_inputs():
    return (torch.ones(3),)
