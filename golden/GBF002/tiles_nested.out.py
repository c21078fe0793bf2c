"""Three nested loops over tiles whose innermost body breaks (a decoder that prints). The outer loop is
outlined whole, with no per-trip function: each tile's work is in `denoise`, which breaks inside and
compiles as a frame of its own either way, so a per-trip function would break at that call too and
bring only the tile's slice into graphs (GBF002/trip_breaks_in_its_call)."""
import torch


def denoise(t, steps):
    print("denoise", tuple(t.shape))
    return t * 0.5 + steps


def decode(z, tiles_t=(0, 1), tiles_h=(0, 2), tiles_w=(0, 2, 4)):
    z = z.tanh()
    groups = []

    def _gbfix_tiles_t_loop_1():
        for t0 in tiles_t:
            rows = []
            for h0 in tiles_h:
                row = []
                for w0 in tiles_w:
                    tile = z[t0, h0 : h0 + 2, w0 : w0 + 2] * 2
                    row.append(denoise(tile, 3))
                rows.append(torch.cat(row, dim=1))
            groups.append(torch.cat(rows, dim=0))

    _gbfix_tiles_t_loop_1()
    return torch.stack(groups).sum(0).relu()


ENTRY = decode
# the loop helper that runs the trips is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 2 * 4 * 6).reshape(2, 4, 6),)
