"""Nested loops where only the inner one breaks: the outer loop is outlined."""
import torch


def f(x, rows=2, cols=3):
    x = x * 2
    def _gbfix_loop_1():
        nonlocal x
        for r in range(rows):
            x = x + r
            for c in range(cols):
                if c == 1:
                    print("cell", r, c)
                x = x - c
    _gbfix_loop_1()
    return x.sum()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
