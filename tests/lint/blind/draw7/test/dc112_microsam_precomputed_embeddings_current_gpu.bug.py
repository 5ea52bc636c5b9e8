# devcheck bug corpus: DC112
# From: https://github.com/computational-cell-analytics/micro-sam/pull/163
# The predictor is built on the device the caller asks for ("cuda:1"), but
# the helper that puts precomputed image embeddings back into it picks its
# own device, "cuda" whenever a GPU is there: the features land on cuda:0
# while the mask decoder's weights are on cuda:1.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Optional

import numpy as np
import torch
from segment_anything import SamPredictor, sam_model_registry


def get_sam_model(device: Optional[str] = None, model_type: str = "vit_b", checkpoint: str = "sam_vit_b.pth"):
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    sam = sam_model_registry[model_type](checkpoint=checkpoint)
    sam.to(device=device)
    return SamPredictor(sam)


@torch.no_grad()
def precompute_image_embeddings(predictor: SamPredictor, image: np.ndarray) -> dict:
    rgb = np.stack([image] * 3, axis=-1) if image.ndim == 2 else image
    predictor.reset_image()
    predictor.set_image(rgb)
    return {
        "features": predictor.get_image_embedding().cpu().numpy(),
        "input_size": predictor.input_size,
        "original_size": predictor.original_size,
    }


def set_precomputed(predictor: SamPredictor, image_embeddings: dict) -> SamPredictor:
    device = "cuda" if torch.cuda.is_available() else "cpu"  # <- bug
    features = image_embeddings["features"]
    predictor.features = torch.from_numpy(features[:]).to(device)
    predictor.input_size = image_embeddings["input_size"]
    predictor.original_size = image_embeddings["original_size"]
    predictor.is_image_set = True
    return predictor


class AutomaticMaskGenerator:
    def __init__(self, predictor: SamPredictor, points_per_side: int = 16):
        self.predictor = predictor
        self.points_per_side = points_per_side

    @torch.no_grad()
    def initialize(self, image: np.ndarray, image_embeddings: dict):
        set_precomputed(self.predictor, image_embeddings)
        h, w = image.shape[:2]
        ys, xs = np.meshgrid(np.linspace(0, h - 1, self.points_per_side), np.linspace(0, w - 1, self.points_per_side))
        points = np.stack([xs.ravel(), ys.ravel()], axis=-1)
        coords = self.predictor.transform.apply_coords(points, image.shape[:2])
        coords = torch.as_tensor(coords, dtype=torch.float, device=self.predictor.device)[:, None, :]
        labels = torch.ones(coords.shape[:2], dtype=torch.int, device=self.predictor.device)
        masks, iou_preds, _ = self.predictor.predict_torch(coords, labels, multimask_output=True)
        self.masks, self.iou_preds = masks, iou_preds
        return masks


if __name__ == "__main__":
    image = np.random.randint(0, 255, size=(512, 512), dtype=np.uint8)
    predictor = get_sam_model(device="cuda:1")
    amg = AutomaticMaskGenerator(predictor)
    embeddings = precompute_image_embeddings(predictor, image)
    amg.initialize(image, embeddings)
