"""A detector's per-image loop around a per-level loop that filters scores through a boolean mask
(torchvision's RetinaNet `postprocess_detections`). The per-image loop is left as it is: outlined whole
it would bring nothing into a graph. The per-level loop is left too: the per-image loop would still
hold the call of its helper, which breaks, so Dynamo would skip the method either way, and the
helper's frames would only add guards and recompiles."""
import torch


class Postprocess(torch.nn.Module):
    def __init__(self, score_thresh=0.4, topk=3):
        super().__init__()
        self.score_thresh = score_thresh
        self.topk = topk

    def forward(self, class_logits, box_regression):
        detections = []
        for index in range(class_logits[0].shape[0]):
            logits_per_image = [logits[index] for logits in class_logits]
            boxes_per_image = [boxes[index] for boxes in box_regression]
            image_scores = []
            image_boxes = []
            for logits_per_level, boxes_per_level in zip(logits_per_image, boxes_per_image):
                scores_per_level = torch.sigmoid(logits_per_level).flatten()
                keep_idxs = scores_per_level > self.score_thresh
                scores_per_level = scores_per_level[keep_idxs]
                topk_idxs = torch.where(keep_idxs)[0]
                scores_per_level, idxs = scores_per_level.topk(min(self.topk, topk_idxs.size(0)))
                topk_idxs = topk_idxs[idxs]
                image_scores.append(scores_per_level)
                image_boxes.append(boxes_per_level[topk_idxs // logits_per_level.shape[-1]])
            detections.append((torch.cat(image_boxes), torch.cat(image_scores)))
        return detections


ENTRY = Postprocess


def example_inputs():
    levels = [torch.linspace(-2.0, 2.0, 2 * n * 2).reshape(2, n, 2) for n in (6, 4, 2)]
    boxes = [torch.arange(2 * n * 4, dtype=torch.float32).reshape(2, n, 4) for n in (6, 4, 2)]
    return (levels, boxes)
