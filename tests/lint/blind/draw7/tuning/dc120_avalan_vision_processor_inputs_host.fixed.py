# devcheck bug corpus: DC120
# From: https://github.com/avalan-ai/avalan/pull/334
# Fixed: each __call__ moves the processor's output to the engine's device
# (inputs.to(self._device), which moves a BatchFeature's tensors in place)
# before calling the model, under inference_mode.
# Written for devcheck's tests after the thread; not the project's code.
import asyncio
from typing import Literal

import torch
from PIL import Image
from torch import inference_mode, unique
from transformers import AutoImageProcessor, AutoModelForImageClassification, AutoModelForSemanticSegmentation


class Engine:
    def __init__(self, model_id, device=None):
        self._model_id = model_id
        self._device = device if device else self.get_default_device()
        self._model = self._load_model()

    @staticmethod
    def get_default_device():
        if torch.cuda.is_available():
            return "cuda"
        if torch.backends.mps.is_available():
            return "mps"
        return "cpu"

    def _load_model(self):
        raise NotImplementedError


class BaseVisionModel(Engine):
    @staticmethod
    def _get_image(image_source):
        return image_source if isinstance(image_source, Image.Image) else Image.open(image_source)


class ImageClassificationModel(BaseVisionModel):
    def _load_model(self):
        self._processor = AutoImageProcessor.from_pretrained(self._model_id, use_fast=True)
        return AutoModelForImageClassification.from_pretrained(self._model_id, device_map=self._device)

    async def __call__(self, image_source, tensor_format: Literal["pt"] = "pt"):
        image = BaseVisionModel._get_image(image_source)
        inputs = self._processor(image, return_tensors=tensor_format)
        inputs.to(self._device)  # <- fixed
        with inference_mode():
            logits = self._model(**inputs).logits  # <- fixed
        label_index = logits.argmax(dim=1).item()
        return self._model.config.id2label[label_index]


class SemanticSegmentationModel(BaseVisionModel):
    def _load_model(self):
        self._processor = AutoImageProcessor.from_pretrained(self._model_id, use_fast=True)
        return AutoModelForSemanticSegmentation.from_pretrained(self._model_id, device_map=self._device)

    async def __call__(self, image_source, tensor_format: Literal["pt"] = "pt"):
        image = BaseVisionModel._get_image(image_source)
        inputs = self._processor(images=image, return_tensors=tensor_format)
        inputs.to(self._device)  # <- fixed
        with inference_mode():
            logits = self._model(**inputs).logits  # <- fixed
        mask = logits.argmax(dim=1)[0]
        labels = unique(mask)
        return [self._model.config.id2label[int(i)] for i in labels]


async def main():
    image = Image.new("RGB", (512, 512), color=(120, 160, 200))
    classifier = ImageClassificationModel("google/vit-base-patch16-224")
    print(await classifier(image))
    segmenter = SemanticSegmentationModel("nvidia/segformer-b0-finetuned-ade-512-512")
    print(await segmenter(image))


if __name__ == "__main__":
    asyncio.run(main())
