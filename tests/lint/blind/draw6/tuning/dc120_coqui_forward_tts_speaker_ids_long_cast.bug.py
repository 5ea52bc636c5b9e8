# devcheck bug corpus: DC120
# From: https://github.com/idiap/coqui-ai-TTS/pull/378
# A multi-speaker FastPitch-style model looks up its speaker embedding in the
# encoder step after casting the speaker ids with `.type(torch.LongTensor)`:
# that legacy type is a CPU type, so the cast copies the ids (moved to the GPU
# with the batch) back to the host, and the embedding on the GPU gets them.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class TokenSpeakerSet(Dataset):
    def __init__(self, n_items=64, n_speakers=4, max_len=30):
        self.items = []
        for i in range(n_items):
            length = 10 + i % (max_len - 10)
            tokens = torch.randint(1, 60, (max_len,))
            tokens[length:] = 0
            self.items.append((tokens, length, i % n_speakers))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        tokens, length, speaker = self.items[idx]
        return tokens, torch.tensor(length), torch.tensor(speaker)


class ForwardTTS(nn.Module):
    def __init__(self, n_tokens=60, hidden=128, n_speakers=4):
        super().__init__()
        self.emb = nn.Embedding(n_tokens, hidden)
        self.emb_g = nn.Embedding(n_speakers, hidden)
        self.encoder = nn.Conv1d(hidden, hidden, 3, padding=1)
        self.duration_predictor = nn.Conv1d(hidden, 1, 1)

    def _forward_encoder(self, x, x_mask, g=None):
        if hasattr(self, "emb_g"):
            g = g.type(torch.LongTensor)  # <- bug
            g = self.emb_g(g)
        if g is not None:
            g = g.unsqueeze(-1)
        x_emb = self.emb(x).transpose(1, 2)
        o_en = self.encoder(x_emb * x_mask)
        if g is not None:
            o_en = o_en + g
        return o_en, x_mask, g

    def forward(self, x, x_lengths, speaker_ids):
        positions = torch.arange(x.size(1), device=x.device)
        x_mask = (positions[None, :] < x_lengths[:, None]).unsqueeze(1).float()
        o_en, x_mask, _ = self._forward_encoder(x, x_mask, speaker_ids)
        return self.duration_predictor(o_en).squeeze(1) * x_mask.squeeze(1)


def train(epochs=2):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = ForwardTTS().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(TokenSpeakerSet(), batch_size=8, shuffle=True)
    for epoch in range(epochs):
        for tokens, lengths, speakers in loader:
            tokens = tokens.to(device)
            lengths = lengths.to(device)
            speakers = speakers.to(device)
            log_durations = model(tokens, lengths, speakers)
            loss = log_durations.pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, loss.item())


if __name__ == "__main__":
    train()
