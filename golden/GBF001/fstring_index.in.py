"""An f-string formatting the index next to `.item()`: rewritten to str.format.

Left as an f-string, the unrolled helper fails to compile from the second
index on (the index becomes a dynamic SymInt)."""
import torch


def f(x):
    for i in range(3):
        x = x + 1
        print(f"step {i}: {x.sum().item():.2f} tag={i!r}")
    return x


ENTRY = f


def example_inputs():
    return (torch.zeros(2),)
