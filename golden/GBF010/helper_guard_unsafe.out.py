# golden: --unsafe-fixes
import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "none"
OPS_IN_GRAPH = 3


def report(x):
    if not torch.compiler.is_compiling():
        print("running total", x.sum())


@torch.compile(backend="eager")
def running(x):
    for _ in range(3):
        x = x.cumsum(0)
        report(x)
    return x


ENTRY = running


def example_inputs():
    return (torch.ones(5),)
