"""Every break of the body comes before its tensor work (a per-expert loop): the head stays in
the loop helper and runs eagerly, and the per-trip function holds the rest, one frame per trip."""
import torch


def route(hidden, top_idx, weights, n_experts=3):
    out = torch.zeros_like(hidden)
    mask = torch.nn.functional.one_hot(top_idx, num_classes=n_experts + 1).permute(1, 0)
    hit = (mask.sum(dim=-1) > 0).nonzero()

    def _gbfix_hit_loop_1():
        def _gbfix_expert_step_2(expert, tokens):
            picked = hidden[tokens] * (expert + 1)
            picked = torch.tanh(picked) * weights[tokens, None]
            out.index_add_(0, tokens, picked)

        for expert in hit:
            expert = expert[0]
            if expert == n_experts:
                continue
            (tokens,) = torch.where(mask[expert])
            _gbfix_expert_step_2(expert, tokens)

    _gbfix_hit_loop_1()
    return out.sum(dim=-1)


ENTRY = route
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    hidden = torch.arange(12.0).reshape(6, 2) / 10
    return (hidden, torch.tensor([0, 2, 2, 3, 0, 1]), torch.linspace(0.5, 1.0, 6))
