"""Registering a module hook in a loop skips the frame (a setattr on torch's hook-handle class):
the registration stays in the loop helper, the tensor work runs per trip in a graph."""
import torch

BLOCKS = [torch.nn.Linear(3, 3) for _ in range(3)]


def _keep(module, inputs, output):
    return output


def f(x):
    x = x * 2

    def _gbfix_blocks_loop_1():
        nonlocal x

        def _gbfix_block_step_2(block):
            nonlocal x
            x = x + block.weight.sum(dim=0).tanh()

        for block in BLOCKS:
            block.register_forward_hook(_keep)
            _gbfix_block_step_2(block)

    _gbfix_blocks_loop_1()
    return x - 1


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 3),)
