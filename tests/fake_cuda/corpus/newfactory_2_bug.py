# kind: new-vs-factory
# source: https://github.com/EuroEval/EuroEval/pull/363
# fix: make the dummy decoder input on the device of input_ids (input_ids.new_zeros / device=input_ids.device)
# expect: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!
# message-1.13: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper__index_select)
# message-2.x: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu! (when checking argument for argument index in method wrapper_CUDA__index_select)
# sanitizer: mismatch
"""Benchmarking an encoder-decoder (T5-like) model: generation starts from a
dummy decoder input of zeros, made with torch.zeros beside the real input_ids."""
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class TinySeq2Seq(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.shared = nn.Embedding(vocab, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, vocab)

    def forward(self, input_ids, decoder_input_ids):
        _, h = self.encoder(self.shared(input_ids))
        out, _ = self.decoder(self.shared(decoder_input_ids), h)  # BUG:op
        return self.lm_head(out)


def greedy_generate(model, input_ids, max_new_tokens=4):
    decoder_input_ids = torch.zeros((input_ids.shape[0], 1), dtype=torch.long)  # BUG:stray
    for _ in range(max_new_tokens):
        logits = model(input_ids, decoder_input_ids)
        next_token = logits[:, -1].argmax(-1, keepdim=True)
        decoder_input_ids = torch.cat([decoder_input_ids, next_token], dim=1)
    return decoder_input_ids


model = TinySeq2Seq().to(device).eval()
batch = {"input_ids": torch.randint(1, 20, (3, 6))}
batch = {k: v.to(device) for k, v in batch.items()}
with torch.no_grad():
    generated = greedy_generate(model, batch["input_ids"])
print(generated.tolist())
