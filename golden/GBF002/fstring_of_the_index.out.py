"""A loop of unknown trip count whose body prints an f-string of the index. Its body runs once per
trip as a function, which Dynamo compiles with a dynamic index from the second trip on; an f-string
of that index makes Dynamo skip the body (BUILD_STRING type error), so it becomes str.format."""
import torch


def f(x, n):
    def _gbfix_loop_1():
        nonlocal x

        def _gbfix_i_step_2(i):
            nonlocal x
            x = x * 2
            print("step {:>3} of {!r}".format(i, n))
            x = x + 1

        for i in range(n):
            _gbfix_i_step_2(i)

    _gbfix_loop_1()
    return x


ENTRY = f
# the driver loop (a gbfix helper) is skipped; each trip's body compiles
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(4), 3)
