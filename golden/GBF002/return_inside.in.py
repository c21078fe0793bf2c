"""`return` inside the loop propagates through the helper's call."""
import torch


def scan_rows(x, limit=2):
    x = x * 3
    for i in range(x.shape[0]):
        if i == limit:
            return x[i] * 10
        print("row", i)
        x = x + 1
    return x.sum()


ENTRY = scan_rows
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.arange(8.0).reshape(4, 2),)
