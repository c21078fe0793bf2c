"""The inner loop breaks and comes before the outer body's tensor work: it is rewritten in
place and stays in the outer loop helper; the outer per-trip function holds the rest."""
import torch


def f(x, rows=2, cols=3):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_r_step_2(r):
            nonlocal x
            x = x * 2
            x = x.tanh() + r

        for r in range(rows):
            def _gbfix_loop_3():
                nonlocal x

                def _gbfix_c_step_4(c):
                    nonlocal x
                    x = x + c

                for c in range(cols):
                    print("cell", r, c)
                    _gbfix_c_step_4(c)

            _gbfix_loop_3()
            _gbfix_r_step_2(r)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
