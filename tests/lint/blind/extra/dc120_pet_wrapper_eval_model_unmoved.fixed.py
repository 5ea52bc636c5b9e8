# devcheck bug corpus: DC120
# From: https://github.com/timoschick/pet/issues/86
# Fixed: the loaded wrapper's model is moved to the device before `eval`.
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
                logits = self.model(batch["input_ids"], batch["attention_mask"])  # <- fixed
            preds.append(logits.argmax(-1).cpu())
        return preds


def main(batches):
    wrapper = TransformerModelWrapper.from_pretrained("final/p0-i0/model.pt")
    wrapper.model.to("cuda")  # <- fixed
    print(wrapper.eval(batches, "cuda"))  # <- fixed
