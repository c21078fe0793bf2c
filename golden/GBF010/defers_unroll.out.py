# golden: --select GBF001,GBF002,GBF010
import torch

GOLDEN_KIND = "cause"
COMPILES_ITSELF = True
PRINTED = "same"
OPS_IN_GRAPH = 9


@torch._dynamo.config.patch(reorderable_logging_functions={print})
@torch.compile(backend="eager")
def smooth(x):
    # GBF010 removes the break's cause: GBF001 leaves the loop as it is
    for i in range(3):
        x = (x + x.roll(1)) / 2
        print("pass", i)
    return x


ENTRY = smooth


def example_inputs():
    return (torch.arange(6.0),)
