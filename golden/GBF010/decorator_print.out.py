import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 6


@torch._dynamo.config.patch(reorderable_logging_functions={print})
@torch.compile(backend="eager")
def step(x):
    for i in range(3):
        x = x * 2
        print("step", i, x.sum())
    return x


ENTRY = step


def example_inputs():
    return (torch.ones(4),)
