# devcheck bug corpus: DC120
# From: https://github.com/timoschick/pet/issues/86
# PET's model wrapper holds a masked language model; its `eval` method moves
# each batch to the device it is given and calls the model. The user loaded
# a trained wrapper and called `eval` with device 'cuda' without moving the
# wrapper's model (training had done that in `train`, not in loading): the
# embedding lookup met CUDA indices and CPU weights ("Expected object of
# device type cuda but got device type cpu for argument #1 'self' in call to
# _th_index_select"). The maintainer's answer: move `wrapper.model` to the
# device before evaluating.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class MaskedLM(nn.Module):
    def __init__(self, vocab_size=30522, hidden=256):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden)
        self.lm_head = nn.Linear(hidden, vocab_size)

    def forward(self, input_ids, attention_mask):
        h = self.embeddings(input_ids) * attention_mask.unsqueeze(-1)
        return self.lm_head(h)


class TransformerModelWrapper:
    def __init__(self, model):
        self.model = model

    @classmethod
    def from_pretrained(cls, path):
        model = MaskedLM()
        model.load_state_dict(torch.load(path, map_location="cpu"))
        return cls(model)

    def train(self, batches, device, lr=1e-5):
        self.model.to(device)
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        for batch in batches:
            batch = {k: t.to(device) for k, t in batch.items()}
            logits = self.model(batch["input_ids"], batch["attention_mask"])
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

    def eval(self, batches, device):
        self.model.eval()
        preds = []
        for batch in batches:
            batch = {k: t.to(device) for k, t in batch.items()}
            with torch.no_grad():
                logits = self.model(batch["input_ids"], batch["attention_mask"])  # <- bug
            preds.append(logits.argmax(-1).cpu())
        return preds


def main(batches):
    wrapper = TransformerModelWrapper.from_pretrained("final/p0-i0/model.pt")
    print(wrapper.eval(batches, "cuda"))  # <- bug
