"""Keypoints decoded region by region (torchvision's `heatmaps_to_keypoints`): each trip reads the
region's size from the device and writes row `i` of the result. A per-trip function would be compiled
again on every trip, the store's index pinning `i` to its value (guards `i == 2`, `i == 3`, ...) up to
Dynamo's recompile limit, after which it runs eagerly. The loop is outlined whole: the work around it
compiles, the trips run in the loop helper."""
import torch
import torch.nn.functional as F


def heatmaps_to_keypoints(maps, rois):
    widths = (rois[:, 2] - rois[:, 0]).clamp(min=1)
    widths_ceil = widths.ceil()
    num_keypoints = maps.shape[1]
    xy_preds = torch.zeros((len(rois), 2, num_keypoints))
    for i in range(len(rois)):
        roi_map_width = int(widths_ceil[i].item())
        roi_map = F.interpolate(maps[i][:, None], size=(roi_map_width, roi_map_width), mode="bilinear")[:, 0]
        pos = roi_map.reshape(num_keypoints, -1).argmax(dim=1)
        x = (pos % roi_map_width).float() * widths[i] / roi_map_width
        xy_preds[i, 0, :] = x + rois[i, 0]
        xy_preds[i, 1, :] = pos.float()
    return xy_preds.permute(0, 2, 1)


ENTRY = heatmaps_to_keypoints
# the loop helper that runs the trips is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    corners = torch.linspace(0.0, 3.0, 12)
    rois = torch.stack([corners, corners, corners * 3 + 2, corners * 2 + 3], 1)
    return (torch.linspace(-1.0, 1.0, 12 * 3 * 5 * 5).reshape(12, 3, 5, 5), rois)
