"""Nested constant loops: both are unrolled, inner first."""
import torch


def grid(x):
    def _gbfix_inner_2(i):
        nonlocal x
        x = x + 1

        def _gbfix_inner_1(j):
            nonlocal x
            x = x * 0.5 + j
            print("cell", i, j)

        _gbfix_inner_1(10)
        _gbfix_inner_1(20)

    _gbfix_inner_2(0)
    _gbfix_inner_2(1)
    return x


ENTRY = grid


def example_inputs():
    return (torch.randn(3),)
