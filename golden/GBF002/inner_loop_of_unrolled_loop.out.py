# golden: --select GBF001,GBF002
"""An inner loop GBF001 refuses, inside an outer loop it unrolls.

The inner loop's variable is read by a closure, so it is not unrolled; once
the outer loop is a helper, the inner loop is the loop that skips that
helper's frame and is outlined, in the same run (a second run must find
nothing left to do).
"""
import torch


def collect(x):
    readers = []
    j: object

    def _gbfix_inner_1(i):
        nonlocal j, x
        x = x + i

        def _gbfix_loop_2():
            nonlocal j, x

            def _gbfix_j_step_3(j):
                nonlocal x
                x = x * 1.5
                print("inner", i, j)

            for j in range(x.numel()):
                _gbfix_j_step_3(j)
            else:
                readers.append(lambda: j)

        _gbfix_loop_2()

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return x + sum(r() for r in readers)


ENTRY = collect
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3),)
