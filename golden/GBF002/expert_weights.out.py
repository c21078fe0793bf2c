"""A per-expert loop that selects each expert's weights by its index (a 0-d integer tensor, a row
of `nonzero()`): the per-trip function is handed `int(expert_idx)`, which selects the same
weights, so that backends that trace the graph (inductor, aot_eager) can compile the selection."""

import torch
from torch import nn


class Experts(nn.Module):
    def __init__(self, num_experts=4, hidden=8, inner=6):
        super().__init__()
        self.num_experts = num_experts
        self.gate_up = nn.Parameter(
            torch.linspace(-1.0, 1.0, num_experts * 2 * inner * hidden).reshape(num_experts, 2 * inner, hidden)
        )
        self.down = nn.Parameter(
            torch.linspace(1.0, -1.0, num_experts * hidden * inner).reshape(num_experts, hidden, inner)
        )

    def forward(self, hidden_states, top_k_index, top_k_weights):
        final = torch.zeros_like(hidden_states)
        with torch.no_grad():
            expert_mask = nn.functional.one_hot(top_k_index, num_classes=self.num_experts).permute(2, 1, 0)
            expert_hit = torch.greater(expert_mask.sum(dim=(-1, -2)), 0).nonzero()

        def _gbfix_expert_hit_loop_1():
            def _gbfix_expert_idx_step_2(expert_idx, token_idx, top_k_pos):
                state = hidden_states[token_idx]
                gate, up = nn.functional.linear(state, self.gate_up[expert_idx]).chunk(2, dim=-1)
                state = nn.functional.silu(gate) * up
                state = nn.functional.linear(state, self.down[expert_idx])
                state = state * top_k_weights[token_idx, top_k_pos, None]
                final.index_add_(0, token_idx, state)

            for expert_idx in expert_hit:
                expert_idx = expert_idx[0]
                if expert_idx == self.num_experts:
                    continue
                top_k_pos, token_idx = torch.where(expert_mask[expert_idx])
                _gbfix_expert_idx_step_2(int(expert_idx), token_idx, top_k_pos)

        _gbfix_expert_hit_loop_1()
        return final


ENTRY = Experts
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    hidden = torch.linspace(-2.0, 2.0, 6 * 8).reshape(6, 8)
    top_k_index = torch.tensor([[0, 2], [0, 2], [1, 3], [3, 2], [0, 3], [2, 1]])
    top_k_weights = torch.full((6, 2), 0.5)
    return (hidden, top_k_index, top_k_weights)
