# golden: --select GBF001,GBF002
"""A while loop holding a constant loop that GBF001 unrolls first.

The unrolled inner loop leaves ``scaled: object`` in the while body; the
helper that outlines the while declares ``nonlocal scaled`` and must not keep
that annotation (a SyntaxError).
"""
import torch


def settle(x):
    scaled: object

    def _gbfix_loop_2():
        nonlocal scaled, x

        def _gbfix_step_3():
            nonlocal scaled, x

            def _gbfix_inner_1(j):
                nonlocal scaled
                print("halving", j)
                scaled = x * 0.5

            _gbfix_inner_1(0)
            _gbfix_inner_1(1)
            x = scaled

        while x.norm().item() > 1.0:
            _gbfix_step_3()

    _gbfix_loop_2()
    return x + scaled


ENTRY = settle
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(16) * 4,)
