import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"


@torch.compile(backend="eager")
def bump(x):
    x = x * 2
    print("doubled", x)
    x.add_(1)
    return x


ENTRY = bump


def example_inputs():
    return (torch.ones(3),)
