# devcheck bug corpus: DC120
# From: https://github.com/pnageshkar/NLP/issues/2
# A notebook predicts with batches moved to the GPU (tuple(t.to(device) for t
# in batch)) but never moves the freshly loaded model: the report prepends
# model = model.to(device).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, hidden, labels):
        super().__init__()
        self.encoder = nn.EmbeddingBag(30522, hidden)
        self.out = nn.Linear(hidden, labels)

    def forward(self, input_ids, attn_mask):
        return self.out(self.encoder(input_ids))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Classifier(768, 6).to(device)  # <- fixed
model.load_state_dict(torch.load("classifier.bin", map_location="cpu"))
model.eval()


def predict(pred_dataloader):
    pred_outs = []
    for batch in pred_dataloader:
        b_input_ids, b_attn_mask = tuple(t.to(device) for t in batch)
        with torch.no_grad():
            pred_out = torch.sigmoid(model(b_input_ids, b_attn_mask))
        pred_outs.append(pred_out.detach().cpu().numpy())
    return pred_outs
