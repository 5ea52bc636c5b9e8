# devcheck bug corpus: DC101
# From: https://github.com/huggingface/transformers/pull/20304
# Fixed: scale_fct is moved to the boxes' device before the boxes are
# scaled.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List

import torch
from PIL import Image
from transformers import DetrForObjectDetection


def center_to_corners_format(x):
    center_x, center_y, width, height = x.unbind(-1)
    return torch.stack([center_x - 0.5 * width, center_y - 0.5 * height, center_x + 0.5 * width, center_y + 0.5 * height], dim=-1)


class DetrImageProcessor:
    def post_process_object_detection(self, outputs, threshold=0.5, target_sizes=None):
        out_logits, out_bbox = outputs.logits, outputs.pred_boxes
        prob = torch.nn.functional.softmax(out_logits, -1)
        scores, labels = prob[..., :-1].max(-1)
        boxes = center_to_corners_format(out_bbox)
        if target_sizes is not None:
            if isinstance(target_sizes, List):
                img_h = torch.Tensor([i[0] for i in target_sizes])  # <- fixed
                img_w = torch.Tensor([i[1] for i in target_sizes])  # <- fixed
            else:
                img_h, img_w = target_sizes.unbind(1)
            scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1)
            scale_fct = scale_fct.to(boxes.device)  # <- fixed
            boxes = boxes * scale_fct[:, None, :]
        results = []
        for s, l, b in zip(scores, labels, boxes):
            keep = s > threshold
            results.append({"scores": s[keep], "labels": l[keep], "boxes": b[keep]})
        return results


def detect(image_path, pixel_values):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = DetrForObjectDetection.from_pretrained("facebook/detr-resnet-50").to(device)
    image = Image.open(image_path)
    with torch.no_grad():
        outputs = model(pixel_values=pixel_values.to(device))
    processor = DetrImageProcessor()
    return processor.post_process_object_detection(outputs, threshold=0.9, target_sizes=[image.size[::-1]])
