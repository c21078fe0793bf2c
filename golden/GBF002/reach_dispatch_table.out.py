# golden: --reach compiled
"""forward picks its decoding loop by name from a module-level table (as `generate` does): every
method the table names is reached, so the loop that logs is fixed; a method no table names is not."""
import torch

DECODERS = {
    "greedy": "_greedy",
    "refine": "_refine",
}


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, mode="refine"):
        decode = getattr(type(self), DECODERS[mode])
        return decode(self, self.proj(x))

    def _greedy(self, x):
        return x.relu()

    def _refine(self, x):
        def _gbfix_loop_1():
            nonlocal x

            def _gbfix_step_2(step):
                nonlocal x
                x = x * 0.5 + torch.tanh(x)
                print("refine step", step)

            for step in range(x.shape[0]):
                _gbfix_step_2(step)

        _gbfix_loop_1()
        return x

    def _unused(self, x):
        for step in range(x.shape[0]):
            x = x * 0.5 + torch.tanh(x)
            print("unused step", step)
        return x


ENTRY = Decoder
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(2, 8),)
