"""Nested constant loops: both are unrolled, inner first."""
import torch


def grid(x):
    def _gbfix_inner_1(i):
        nonlocal x
        x = x + 1

        def _gbfix_inner_2(j):
            nonlocal x
            x = x * 0.5 + j
            print("cell", i, j)

        _gbfix_inner_2(10)
        _gbfix_inner_2(20)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return x


ENTRY = grid


def example_inputs():
    return (torch.randn(3),)
