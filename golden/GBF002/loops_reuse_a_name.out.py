"""Two loops that reuse their variable and a temporary (`i`, `h`), as code often does: each
loop binds them before reading them and nothing else reads them, so each helper keeps its
own. Shared, they would need a declaration without a value in the function once both loops
are helpers (the function itself binds neither)."""
import torch


def f(x, n=3):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(h):
            nonlocal x
            x = x + h.tanh()

        for i in range(n):
            h = x * (i + 1)
            print("warm", i)
            _gbfix_i_step_2(h)

    _gbfix_loop_1()

    def _gbfix_loop_3():
        nonlocal x

        def _gbfix_i_step_4(i):
            nonlocal x
            h = x.sin() - i
            print("refine", i)
            x = x * 0.9 + h

        for i in range(n):
            _gbfix_i_step_4(i)

    _gbfix_loop_3()
    return x


ENTRY = f
EXPECT_SKIPPED_AFTER = 2


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 4),)
