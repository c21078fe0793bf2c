"""Nested loops where only the inner one breaks: one loop helper runs both loops (the outer
body eagerly) and defines the inner loop's per-trip function: one helper level."""
import torch


def f(x, rows=2, cols=3):
    x = x * 2

    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_c_step_2(c):
            nonlocal x
            x = x - c

        for r in range(rows):
            x = x + r
            for c in range(cols):
                if c == 1:
                    print("cell", r, c)
                _gbfix_c_step_2(c)

    _gbfix_loop_1()
    return x.sum()


ENTRY = f
# the one loop helper is skipped; the inner body's work runs in graphs
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(3),)
