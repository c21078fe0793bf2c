"""A mixture-of-experts loop over `nonzero()`: the body rebinds its loop variable and skips an
index with `continue`; the temporaries it binds after that stay the per-trip function's own."""
import torch

NUM_EXPERTS = 3


def f(x, n=3):
    weights = torch.arange(1.0, NUM_EXPERTS + 1.0)
    mask = torch.stack([x > 0, x < 0, x == 0])
    hit = (mask.sum(dim=1) > 0).nonzero()
    out = torch.zeros_like(x)

    def _gbfix_hit_loop_1():
        def _gbfix_expert_idx_step_2(expert_idx):
            expert_idx = expert_idx[0]
            if expert_idx == NUM_EXPERTS:
                return
            (token_idx,) = torch.where(mask[expert_idx])
            current = x[token_idx] * weights[expert_idx]
            out.index_add_(0, token_idx, current)

        for expert_idx in hit:
            _gbfix_expert_idx_step_2(expert_idx)

    _gbfix_hit_loop_1()
    return out * 2


ENTRY = f
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.tensor([1.0, -2.0, 0.0, 3.0]),)
