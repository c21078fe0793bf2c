"""A tab-indented function in a file that indents with spaces keeps its tabs."""
import torch


def scale(x):
    return x * 2


def shrink(x):
	x = x.exp()
	while x.norm().item() > 1.0:
		x = x * 0.5
	return x.log1p()


ENTRY = shrink
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(16),)
