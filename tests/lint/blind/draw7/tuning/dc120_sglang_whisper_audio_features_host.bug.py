# devcheck bug corpus: DC120
# From: https://github.com/sgl-project/sglang/pull/22296
# The multimodal processor keeps each request's Whisper input_features on the
# CPU (the feature extractor's return_tensors="pt" output); the model's forward
# only casts them with features.to(dtype), and builds the encoder position ids
# on features.device, so the CUDA encoder's conv1 gets a CPU input.
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import WhisperFeatureExtractor


@dataclass
class MultimodalItem:
    feature: torch.Tensor


@dataclass
class MultimodalInput:
    mm_items: List[MultimodalItem] = field(default_factory=list)


@dataclass
class ForwardBatch:
    mm_inputs: List[Optional[MultimodalInput]]


class WhisperEncoder(nn.Module):
    def __init__(self, n_mels=128, d_model=1280, max_positions=1500):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, d_model, kernel_size=3, padding=1)
        self.conv2 = nn.Conv1d(d_model, d_model, kernel_size=3, stride=2, padding=1)
        self.embed_positions = nn.Embedding(max_positions, d_model)
        self.layers = nn.ModuleList(nn.TransformerEncoderLayer(d_model, 20, batch_first=True) for _ in range(2))

    def forward(self, features, position_ids):
        x = F.gelu(self.conv1(features))
        x = F.gelu(self.conv2(x)).permute(0, 2, 1)
        x = x + self.embed_positions(position_ids)
        for layer in self.layers:
            x = layer(x)
        return x


class WhisperForConditionalGeneration(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = WhisperEncoder()
        self._encoder_cache = {}

    def forward(self, input_ids, positions, forward_batch: ForwardBatch):
        dtype = self.encoder.conv1.weight.dtype
        outputs = []
        for req_idx, mm_input in enumerate(forward_batch.mm_inputs):
            if mm_input is None or not mm_input.mm_items:
                continue
            features = mm_input.mm_items[0].feature
            if features.ndim == 2:
                features = features.unsqueeze(0)
            encoder_len = features.shape[-1] // 2
            encoder_position_ids = torch.arange(encoder_len).to(features.device, non_blocking=True)  # <- bug
            out = self.encoder(features.to(dtype), encoder_position_ids)  # <- bug
            self._encoder_cache[req_idx] = out.squeeze(0)
            outputs.append(out)
        return outputs


def main():
    device = torch.device("cuda")
    model = WhisperForConditionalGeneration().to(device=device, dtype=torch.float16).eval()
    extractor = WhisperFeatureExtractor(feature_size=128)
    audio = np.random.randn(16000 * 30).astype(np.float32)
    feats = extractor(audio, sampling_rate=16000, return_tensors="pt").input_features[0]
    batch = ForwardBatch(mm_inputs=[MultimodalInput(mm_items=[MultimodalItem(feature=feats)])])
    input_ids = torch.tensor([[50258]], device=device)
    with torch.no_grad():
        enc = model(input_ids, torch.zeros_like(input_ids), batch)
    print(enc[0].shape)


if __name__ == "__main__":
    main()
