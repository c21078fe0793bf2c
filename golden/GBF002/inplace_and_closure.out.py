"""In-place mutation of a tensor in the body, and a closure over a name the body binds."""
import torch


def f(x, n=3):
    buf = torch.zeros_like(x)
    readers = []

    def _gbfix_loop_1():
        for i in range(n):
            v = x * (i + 1)
            buf.add_(v)
            readers.append(lambda: v.sum())
            print("trip", i)

    _gbfix_loop_1()
    # every closure sees the last `v`, as in the loop as written
    return buf + torch.stack([r() for r in readers]).sum()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(2),)
