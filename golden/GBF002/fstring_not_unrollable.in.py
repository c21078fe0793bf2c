"""A constant-trip loop whose f-string has no exact str.format spelling: outlined, not unrolled.

A replacement field inside a format spec with its own conversion
(`{i:{w!r}}`) cannot become a plain `{}`; left as an f-string, the unrolled
helper would fail to compile from the second index on, so the loop is
outlined whole."""
import torch


def f(x, w=3):
    x = x.sin()
    for i in range(3):
        x = x + 1
        print(f"{i:{w!r}}")
    return x.cos()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
