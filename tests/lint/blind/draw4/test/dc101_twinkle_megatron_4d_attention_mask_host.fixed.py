# devcheck bug corpus: DC101
# From: https://github.com/modelscope/twinkle/pull/85
# The fix (PR 85, commit 22a1119) takes the device of the per-sample masks
# and builds the 4-D mask there (torch.ones(..., device=device)).
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, List

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence


def get_local_device():
    return torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu")


class InputProcessor:
    padding_map = {"input_ids": 0, "labels": -100, "position_ids": 0}

    def __init__(self, framework="megatron"):
        self.framework = framework

    def prepare_inputs(self, inputs: List[Dict]) -> List[Dict]:
        prepared = []
        for item in inputs:
            out = {}
            for key, value in item.items():
                if isinstance(value, np.ndarray):
                    value = torch.from_numpy(value)
                elif isinstance(value, list):
                    value = torch.tensor(value)
                out[key] = value.to(get_local_device())
            prepared.append(out)
        return prepared

    @staticmethod
    def _create_4d_attention_mask(attention_mask):
        seq_lens = [s.shape[0] for s in attention_mask]
        max_len = max(seq_lens)
        device = attention_mask[0].device  # <- fixed
        mask = torch.tril(torch.ones((len(seq_lens), max_len, max_len), dtype=torch.bool, device=device)).view(  # <- fixed
            len(seq_lens), 1, max_len, max_len)
        for i, seq_len in enumerate(seq_lens):
            mask[i, :, :, seq_len:] = 0
        return ~mask

    def collate(self, inputs: List[Dict]) -> Dict:
        result = {}
        for key in inputs[0]:
            values = [item[key].squeeze() for item in inputs]
            if self.framework == "megatron" and key == "attention_mask":
                result[key] = self._create_4d_attention_mask(values)
            else:
                result[key] = pad_sequence(values, batch_first=True, padding_value=self.padding_map[key])
        return result


class TinyGPT(nn.Module):
    def __init__(self, vocab=1000, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.head = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask, labels=None, position_ids=None):
        h = self.embed(input_ids)
        h, _ = self.attn(h, h, h, attn_mask=attention_mask[:, 0].repeat_interleave(4, dim=0))
        logits = self.head(h)
        return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=-100)


if __name__ == "__main__":
    processor = InputProcessor()
    model = TinyGPT().to(get_local_device())
    raw = [{"input_ids": [5, 6, 7, 8], "labels": [6, 7, 8, -100], "attention_mask": [1, 1, 1, 1]},
           {"input_ids": [9, 10], "labels": [10, -100], "attention_mask": [1, 1]}]
    batch = processor.collate(processor.prepare_inputs(raw))
    print(model(**batch).item())
