"""An f-string formatting the index next to `.item()`: rewritten to str.format.

Left as an f-string, the unrolled helper fails to compile from the second
index on (the index becomes a dynamic SymInt)."""
import torch


def f(x):
    def _gbfix_inner_1(i):
        nonlocal x
        x = x + 1
        print("step {}: {:.2f} tag={!r}".format(i, x.sum().item(), i))

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x


ENTRY = f


def example_inputs():
    return (torch.zeros(2),)
