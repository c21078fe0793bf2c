"""The inner loop breaks and comes before the outer body's tensor work: it stays in the outer
loop helper, which also defines the inner loop's per-trip function; the outer per-trip
function holds the rest. One helper level for both loops."""
import torch


def f(x, rows=2, cols=3):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_r_step_2(r):
            nonlocal x
            x = x * 2
            x = x.tanh() + r

        def _gbfix_c_step_3(c):
            nonlocal x
            x = x + c

        for r in range(rows):
            for c in range(cols):
                print("cell", r, c)
                _gbfix_c_step_3(c)
            _gbfix_r_step_2(r)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
