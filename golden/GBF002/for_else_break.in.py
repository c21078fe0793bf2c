"""`break` ends the loop through a value the driver reads; `else` stays on the loop."""
import torch


def f(x, limit=2.5):
    for i in range(x.numel()):
        x = x * 1.1
        print("trip", i)
        if x.sum().item() > limit * 10:
            break
    else:
        x = x - 100
    return x.relu()


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(6),)
