# devcheck bug corpus: DC120
# From: https://github.com/roboflow/inference/pull/2560
# The ONNX CLIP model preprocesses images onto its device, but its text path
# hands clip.tokenize's CPU tensor straight to the session runner, which runs
# on the device of its input: text embeddings come back on the CPU, image
# embeddings on the GPU, and the similarity matmul mixes the two.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List

import clip
import numpy as np
import onnxruntime as ort
import torch
import torchvision.transforms.functional as TF


def run_session_via_iobinding(session: ort.InferenceSession, x: torch.Tensor) -> torch.Tensor:
    binding = session.io_binding()
    x = x.contiguous()
    device_type = "cuda" if x.is_cuda else "cpu"
    device_id = x.device.index or 0
    binding.bind_input(session.get_inputs()[0].name, device_type, device_id,
                       np.int32 if x.dtype == torch.int32 else np.float32, tuple(x.shape), x.data_ptr())
    out_name = session.get_outputs()[0].name
    binding.bind_output(out_name, device_type, device_id)
    session.run_with_iobinding(binding)
    return torch.from_dlpack(binding.get_outputs()[0]._ortvalue.to_dlpack())


class ClipOnnx:
    def __init__(self, visual_path: str, textual_path: str, device: torch.device):
        self._device = device
        providers = ["CUDAExecutionProvider"] if device.type == "cuda" else ["CPUExecutionProvider"]
        self._visual = ort.InferenceSession(visual_path, providers=providers)
        self._textual = ort.InferenceSession(textual_path, providers=providers)
        self._mean = torch.tensor([0.4815, 0.4578, 0.4082], device=device).view(3, 1, 1)
        self._std = torch.tensor([0.2686, 0.2613, 0.2758], device=device).view(3, 1, 1)

    def embed_images(self, images: List[np.ndarray]) -> torch.Tensor:
        batch = []
        for img in images:
            t = torch.from_numpy(img).permute(2, 0, 1).to(self._device).float() / 255.0
            t = TF.resize(t, [224, 224], antialias=True)
            batch.append((t - self._mean) / self._std)
        return run_session_via_iobinding(self._visual, torch.stack(batch))

    def embed_text(self, texts: List[str]) -> torch.Tensor:
        tokens = clip.tokenize(texts).to(torch.int32)  # <- bug
        return run_session_via_iobinding(self._textual, tokens)

    def compare_embeddings(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        x_norm = x / x.norm(dim=-1, keepdim=True)
        y_norm = y / y.norm(dim=-1, keepdim=True)
        return x_norm @ y_norm.T


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ClipOnnx("visual.onnx", "textual.onnx", device)
    image = np.zeros((480, 640, 3), dtype=np.uint8)
    image_emb = model.embed_images([image])
    text_emb = model.embed_text(["a photo of a cat", "a photo of a dog"])
    probs = model.compare_embeddings(image_emb, text_emb).softmax(dim=-1)
    print(probs.cpu().numpy())
