import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"


def summarize(losses):
    for loss in losses:
        print("loss", loss)
    return losses


@torch.compile(backend="eager")
def square(x):
    return x * x


ENTRY = square


def example_inputs():
    return (torch.ones(2),)
