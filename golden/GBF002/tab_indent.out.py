"""A tab-indented function in a file that indents with spaces keeps its tabs."""
import torch


def scale(x):
    return x * 2


def shrink(x):
	x = x.exp()

	def _gbfix_loop_1():
		nonlocal x

		def _gbfix_step_2():
			nonlocal x
			x = x * 0.5

		while x.norm().item() > 1.0:
			_gbfix_step_2()

	_gbfix_loop_1()
	return x.log1p()


ENTRY = shrink
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(16),)
