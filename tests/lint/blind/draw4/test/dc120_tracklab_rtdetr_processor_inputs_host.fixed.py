# devcheck bug corpus: DC120
# From: https://github.com/TrackingLaboratory/tracklab/pull/22
# The fix (PR 22, commit f9e5248) moves each tensor of the processor's
# output to self.device before the model is called, and copies each box to
# the CPU before .numpy().
# Written for devcheck's tests after the thread; not the project's code.
from typing import Any

import numpy as np
import pandas as pd
import torch
from transformers import RTDetrForObjectDetection, RTDetrImageProcessor, RTDetrV2ForObjectDetection

from tracklab.pipeline import ImageLevelModule


def ltrb_to_ltwh(box, image_shape):
    w, h = image_shape
    l, t, r, b = np.clip(box, 0, [w, h, w, h])
    return np.array([l, t, r - l, b - t])


class RTDetr(ImageLevelModule):
    input_columns = []
    output_columns = ["image_id", "video_id", "category_id", "bbox_ltwh", "bbox_conf"]

    def __init__(self, device, batch_size, model_name, min_confidence, **kwargs):
        super().__init__(batch_size)
        self.device = device
        self.image_processor = RTDetrImageProcessor.from_pretrained(f"PekingU/{model_name}")
        if "v2" in model_name:
            self.model = RTDetrV2ForObjectDetection.from_pretrained(f"PekingU/{model_name}", device_map=device)
        else:
            self.model = RTDetrForObjectDetection.from_pretrained(f"PekingU/{model_name}", device_map=device)
        self.min_confidence = min_confidence
        self.id = 0

    @torch.no_grad()
    def preprocess(self, image, detections: pd.DataFrame, metadata: pd.Series) -> Any:
        return image

    @torch.no_grad()
    def process(self, batch: Any, detections: pd.DataFrame, metadatas: pd.DataFrame):
        images = self.image_processor(batch, return_tensors="pt")
        for key in images.keys():  # <- fixed
            images[key] = images[key].to(self.device)  # <- fixed
        outputs = self.model(**images)  # <- fixed
        results = self.image_processor.post_process_object_detection(
            outputs, target_sizes=[batch.shape[1:3]] * batch.shape[0], threshold=self.min_confidence
        )
        found = []
        for i, result in enumerate(results):
            for score, label, box in zip(result["scores"], result["labels"], result["boxes"]):
                if label == 0:
                    found.append(pd.Series(dict(
                        image_id=metadatas["id"].values[i],
                        bbox_ltwh=ltrb_to_ltwh(box.cpu().numpy(), (batch.shape[2], batch.shape[1])),  # <- fixed
                        bbox_conf=score.item(),
                        video_id=metadatas["video_id"].values[i],
                        category_id=1,
                    ), name=self.id))
                    self.id += 1
        return found


if __name__ == "__main__":
    detector = RTDetr("cuda", batch_size=2, model_name="rtdetr_r50vd", min_confidence=0.4)
    frames = np.random.randint(0, 255, (2, 480, 640, 3), dtype=np.uint8)
    meta = pd.DataFrame({"id": [0, 1], "video_id": [7, 7]})
    print(detector.process(frames, pd.DataFrame(), meta))
