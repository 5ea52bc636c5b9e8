# devcheck bug corpus: DC122
# From: https://github.com/rasbt/LLMs-from-scratch/issues/232
# Fixed: the model is moved to the device before the optimizer is made and the
# checkpoint's state loaded into it, so the state is put on the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class GPTModel(nn.Module):
    def __init__(self, vocab_size=50257, emb_dim=768, context_length=256):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, emb_dim)
        self.pos_emb = nn.Embedding(context_length, emb_dim)
        self.blocks = nn.Sequential(nn.Linear(emb_dim, emb_dim), nn.GELU())
        self.out_head = nn.Linear(emb_dim, vocab_size, bias=False)

    def forward(self, idx):
        positions = torch.arange(idx.shape[1], device=idx.device)
        return self.out_head(self.blocks(self.tok_emb(idx) + self.pos_emb(positions)))


def train_model_simple(model, train_loader, optimizer, device, num_epochs):
    for _ in range(num_epochs):
        model.train()
        for input_batch, target_batch in train_loader:
            input_batch, target_batch = input_batch.to(device), target_batch.to(device)
            logits = model(input_batch)
            loss = nn.functional.cross_entropy(logits.flatten(0, 1), target_batch.flatten())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def main(train_loader):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    checkpoint = torch.load("model_and_optimizer.pth", map_location=device)
    model = GPTModel()
    model.load_state_dict(checkpoint["model_state_dict"])
    model.to(device)  # <- fixed
    optimizer = torch.optim.AdamW(model.parameters(), lr=0.0004, weight_decay=0.1)  # <- fixed
    optimizer.load_state_dict(checkpoint["optimizer_state_dict"])  # <- fixed
    train_model_simple(model, train_loader, optimizer, device, num_epochs=1)
