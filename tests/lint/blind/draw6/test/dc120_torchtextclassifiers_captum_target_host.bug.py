# devcheck bug corpus: DC120
# From: https://github.com/InseeFrLab/torchTextClassifiers/pull/97
# predict() moves the model and the tokenized inputs to the requested device,
# but computes the top-k classes from scores copied to the CPU and hands those
# CPU indices to Captum as the attribution target: the explanation step mixes
# the model's GPU outputs with a CPU target.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from captum.attr import LayerIntegratedGradients


class TextClassificationModel(nn.Module):
    def __init__(self, vocab_size=30000, dim=64, n_cat=3, num_classes=10):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.head = nn.Linear(dim + n_cat, num_classes)

    def forward(self, input_ids, attention_mask, categorical_vars):
        emb = self.embedding(input_ids) * attention_mask.unsqueeze(-1)
        pooled = emb.sum(1) / attention_mask.sum(1, keepdim=True).clamp(min=1)
        return self.head(torch.cat([pooled, categorical_vars], dim=-1))


class TextClassifier:
    def __init__(self, tokenizer, model):
        self.tokenizer = tokenizer
        self.pytorch_model = model

    def predict(self, texts, categorical_variables, top_k=1, explain=False, device="cpu"):
        self.pytorch_model.eval().to(device)
        tok = self.tokenizer(texts, padding=True, return_tensors="pt")
        encoded_text = tok["input_ids"].to(device)
        attention_mask = tok["attention_mask"].to(device)
        categorical_vars = torch.tensor(categorical_variables, dtype=torch.float32, device=device)
        pred = self.pytorch_model(encoded_text, attention_mask, categorical_vars)
        label_scores = pred.detach().cpu().softmax(dim=1)  # <- bug
        label_scores_topk = torch.topk(label_scores, k=top_k, dim=1)
        integer_predictions = label_scores_topk.indices
        confidence = torch.round(label_scores_topk.values, decimals=2)
        result = {"prediction": integer_predictions, "confidence": confidence}
        if explain:
            lig = LayerIntegratedGradients(self.pytorch_model, self.pytorch_model.embedding)
            attributions_k = []
            for k in range(top_k):
                attributions = lig.attribute(
                    (encoded_text, attention_mask, categorical_vars),
                    target=integer_predictions[:, k],  # <- bug
                )
                attributions_k.append(attributions.sum(dim=-1).detach().cpu())
            result["attributions"] = torch.stack(attributions_k, dim=1)
        return result


if __name__ == "__main__":
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained("camembert-base")
    clf = TextClassifier(tokenizer, TextClassificationModel(vocab_size=tokenizer.vocab_size))
    device = "cuda" if torch.cuda.is_available() else "cpu"
    out = clf.predict(["vente de pain", "réparation automobile"], [[1, 0, 2], [0, 1, 1]], top_k=2, explain=True, device=device)
    print(out["prediction"], out["attributions"].shape)
