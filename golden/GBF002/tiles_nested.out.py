"""Three nested loops over tiles whose innermost body breaks (a decoder that prints): one
loop helper runs all three loops, the outer bodies eagerly, and defines the innermost
body's per-trip function. No helper inside a helper's helper, no declaration without a
value (`row` is bound by the middle loop's body before the innermost loop reads it)."""
import torch


def denoise(t, steps):
    print("denoise", tuple(t.shape))
    return t * 0.5 + steps


def decode(z, tiles_t=(0, 1), tiles_h=(0, 2), tiles_w=(0, 2, 4)):
    z = z.tanh()
    groups = []

    def _gbfix_tiles_t_loop_1():
        def _gbfix_w0_step_2(w0):
            tile = z[t0, h0 : h0 + 2, w0 : w0 + 2] * 2
            return denoise(tile, 3)

        for t0 in tiles_t:
            rows = []
            for h0 in tiles_h:
                row = []
                for w0 in tiles_w:
                    row.append(_gbfix_w0_step_2(w0))
                rows.append(torch.cat(row, dim=1))
            groups.append(torch.cat(rows, dim=0))

    _gbfix_tiles_t_loop_1()
    return torch.stack(groups).sum(0).relu()


ENTRY = decode
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 2 * 4 * 6).reshape(2, 4, 6),)
