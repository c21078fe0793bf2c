"""An f-string field inside an implicit concatenation ("step " f"{i}" " of 3"): the unrolled helper
needs it as one str.format call ("step {} of 3".format(i)), so the parts are merged first (this
crashed the analysis once: a call cannot stand in a concatenation)."""
import torch


def f(x):
    for i in range(3):
        x = x + 1
        print("step " f"{i}" " of 3")
    return x


ENTRY = f


def example_inputs():
    return (torch.randn(4),)
