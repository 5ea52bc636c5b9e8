# devcheck bug corpus: DC120
# From: https://github.com/huggingface/setfit/issues/169
# From: https://github.com/huggingface/setfit/pull/175
# Fixed: from_pretrained() moves the body to its target device right after
# loading it, so the body, its batches and the head are on one device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from sentence_transformers import SentenceTransformer
from torch.utils.data import DataLoader


class ClassifierHead(nn.Module):
    def __init__(self, in_features, out_features=2, temperature=1.0, device=None):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.temperature = temperature
        self.target = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.to(self.target)

    def forward(self, features):
        logits = self.linear(features["sentence_embedding"])
        features["prediction"] = torch.softmax(logits / self.temperature, dim=-1)
        return features


class FewShotModel:
    def __init__(self, body, head):
        self.body = body
        self.head = head

    @classmethod
    def from_pretrained(cls, model_id, num_classes=2):
        body = SentenceTransformer(model_id)  # <- fixed
        target_device = body._target_device
        body.to(target_device)  # <- fixed
        head = ClassifierHead(body.get_sentence_embedding_dimension(), num_classes, device=target_device)
        return cls(body, head)

    def fit(self, texts, labels, epochs=3, batch_size=16, lr=1e-3):
        device = self.body.device
        pairs = list(zip(texts, labels))
        loader = DataLoader(pairs, batch_size=batch_size, shuffle=True, collate_fn=self.collate)
        params = list(self.head.parameters()) + list(self.body.parameters())
        optimizer = torch.optim.AdamW(params, lr=lr)
        criterion = nn.CrossEntropyLoss()
        self.body.train()
        self.head.train()
        for _ in range(epochs):
            for features, target in loader:
                features = {k: v.to(device) for k, v in features.items()}
                target = target.to(device)
                optimizer.zero_grad()
                out = self.head(self.body(features))
                loss = criterion(out["prediction"], target)
                loss.backward()
                optimizer.step()

    def collate(self, batch):
        texts, labels = zip(*batch)
        features = self.body.tokenize(list(texts))
        return features, torch.tensor(labels)


model = FewShotModel.from_pretrained("sentence-transformers/paraphrase-mpnet-base-v2", num_classes=2)
model.fit(["great movie", "awful plot", "loved it", "boring"], [1, 0, 1, 0], epochs=2, batch_size=2)
