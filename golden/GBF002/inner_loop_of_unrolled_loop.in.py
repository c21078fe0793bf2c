# golden: --select GBF001,GBF002
"""An inner loop GBF001 refuses, inside an outer loop it could unroll.

The inner loop's variable is read by a closure, so it is not unrolled; and,
first bound inside the outer loop, it could be shared with the outer loop's
helper only through a declaration without a value, so the outer loop is not
unrolled either. GBF002 outlines both loops in one helper, which defines the
inner loop's per-trip function (a second run must find nothing left to do).
"""
import torch


def collect(x):
    readers = []
    for i in range(2):
        x = x + i
        for j in range(x.numel()):
            x = x * 1.5
            print("inner", i, j)
        else:
            readers.append(lambda: j)
    return x + sum(r() for r in readers)


ENTRY = collect
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
