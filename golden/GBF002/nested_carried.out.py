"""A name an inner loop binds and the outer body reads after it carries a value from trip to
trip (the inner loop runs no trip when `r` is odd): it lives in the outer loop helper. The
inner loop's own target, read only inside it, stays the per-trip function's."""
import torch


def f(x, rows=3):
    def _gbfix_loop_1():
        nonlocal x
        last: object

        def _gbfix_r_step_2(r):
            nonlocal last, x

            def _gbfix_loop_3():
                nonlocal last

                def _gbfix_c_step_4():
                    nonlocal last
                    last = x * (r + 1)

                for c in range(1 - r % 2):
                    print("cell", r, c)
                    _gbfix_c_step_4()

            _gbfix_loop_3()
            x = x + last

        for r in range(rows):
            _gbfix_r_step_2(r)

    _gbfix_loop_1()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
