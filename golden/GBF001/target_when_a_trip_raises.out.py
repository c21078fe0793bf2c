# golden: --select GBF001,GBF004
"""A trip that raises: the loop variable keeps that trip's value, as the loop leaves it."""
import torch


def f(x):
    i: object

    def _gbfix_try_2():
        nonlocal i, x
        try:
            def _gbfix_inner_1(i):
                nonlocal x
                x = x + i
                torch._dynamo.graph_break()
                if i == 1:
                    raise ValueError("stop")

            i = 0
            _gbfix_inner_1(i)
            i = 1
            _gbfix_inner_1(i)
            i = 2
            _gbfix_inner_1(i)
        except ValueError:
            x = x * 2

    _gbfix_try_2()
    return x + i


ENTRY = f
# GBF004 outlines the `try`: its helper is what is still skipped.
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
