# golden: --select GBF001,GBF002
"""A while loop holding a constant loop that GBF001 unrolls first.

Left unchanged: a name first bound in the loop and used after it (or on a later trip)
could be shared only through a declaration without a value, which Dynamo cannot read.
The unrolled inner loop leaves ``scaled: object`` in the while body; the
helper that outlines the while declares ``nonlocal scaled`` and must not keep
that annotation (a SyntaxError).
"""
import torch


def settle(x):
    while x.norm().item() > 1.0:
        for j in range(2):
            print("halving", j)
            scaled = x * 0.5
        x = scaled
    return x + scaled


ENTRY = settle
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(16) * 4,)
