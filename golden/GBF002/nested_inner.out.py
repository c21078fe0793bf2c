"""Nested loops where only the inner one breaks: each loop runs its body per trip."""
import torch


def f(x, rows=2, cols=3):
    x = x * 2

    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_r_step_2(r):
            nonlocal x
            x = x + r

            def _gbfix_loop_3():
                nonlocal x

                def _gbfix_c_step_4(c):
                    nonlocal x
                    x = x - c

                for c in range(cols):
                    if c == 1:
                        print("cell", r, c)
                    _gbfix_c_step_4(c)

            _gbfix_loop_3()

        for r in range(rows):
            _gbfix_r_step_2(r)

    _gbfix_loop_1()
    return x.sum()


ENTRY = f
# each loop's driver is a skipped frame of its own; the work of both bodies runs in graphs
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.ones(3),)
