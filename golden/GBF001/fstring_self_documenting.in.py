"""Self-documenting f-string fields (`{i=}`) next to `.item()`: rewritten to str.format.

The field's own text goes into the format string, then the value, as repr
unless the field names a format spec: `f"{ i = }"` and
`" i = {!r}".format(i)` print the same."""
import torch


def f(x):
    for i in range(3):
        x = x + 1
        print(f"{i=} { i = } {x.sum().item()=:.2f}")
    return x


ENTRY = f


def example_inputs():
    return (torch.zeros(2),)
