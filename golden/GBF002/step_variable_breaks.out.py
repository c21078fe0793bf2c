"""A loop over `step` that stops early: the per-trip function says so with a plain flag
(`return True`, `if ...: break`), and its name does not stutter (`_gbfix_step_N`)."""
import torch


def refine(x, steps=(1.0, 0.5, 0.25, 0.125)):
    x = x.sin()

    def _gbfix_steps_loop_1():
        nonlocal x

        def _gbfix_step_2(step):
            nonlocal x
            x = x - step * x.tanh()
            if x.abs().max() < 0.2:
                print("converged at", step)
                return True
            x = x * 1.01
            return False

        for step in steps:
            if _gbfix_step_2(step):
                break

    _gbfix_steps_loop_1()
    return x.cos()


ENTRY = refine
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 5),)
