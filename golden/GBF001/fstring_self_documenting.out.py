"""Self-documenting f-string fields (`{i=}`) next to `.item()`: rewritten to str.format.

The field's own text goes into the format string, then the value, as repr
unless the field names a format spec: `f"{ i = }"` and
`" i = {!r}".format(i)` print the same."""
import torch


def f(x):
    def _gbfix_inner_1(i):
        nonlocal x
        x = x + 1
        print("i={!r}  i = {!r} x.sum().item()={:.2f}".format(i, i, x.sum().item()))

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x


ENTRY = f


def example_inputs():
    return (torch.zeros(2),)
