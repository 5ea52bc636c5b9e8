# devcheck bug corpus: DC112
# From: https://github.com/NVIDIA-NeMo/Speech/pull/7444
# Fixed as the PR did: the lengths and flags are made and then moved to the
# device of the encoder memory (memory.device) instead of to CUDA whenever it
# exists, so they follow the model wherever it runs.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Prenet(nn.Module):
    def __init__(self, n_mels=80, dim=256):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(n_mels, dim), nn.Linear(dim, dim)])

    def forward(self, x):
        for layer in self.layers:
            x = F.dropout(F.relu(layer(x)), 0.5, training=True)
        return x


class Decoder(nn.Module):
    def __init__(self, n_mels=80, enc_dim=512, rnn_dim=1024, max_steps=200):
        super().__init__()
        self.n_mels = n_mels
        self.max_steps = max_steps
        self.gate_threshold = 0.5
        self.prenet = Prenet(n_mels)
        self.rnn = nn.LSTMCell(256 + enc_dim, rnn_dim)
        self.proj = nn.Linear(rnn_dim + enc_dim, n_mels)
        self.gate = nn.Linear(rnn_dim + enc_dim, 1)

    def infer(self, memory):
        batch = memory.size(0)
        frame = memory.new_zeros(batch, self.n_mels)
        hidden = memory.new_zeros(batch, self.rnn.hidden_size)
        cell = memory.new_zeros(batch, self.rnn.hidden_size)
        context = memory.mean(dim=1)

        mel_lengths = torch.zeros([batch], dtype=torch.int32).to(memory.device)  # <- fixed
        not_finished = torch.ones([batch], dtype=torch.int32).to(memory.device)  # <- fixed

        frames = []
        while len(frames) < self.max_steps:
            hidden, cell = self.rnn(torch.cat([self.prenet(frame), context], -1), (hidden, cell))
            out = torch.cat([hidden, context], -1)
            frame, gate = self.proj(out), self.gate(out)
            dec = torch.le(torch.sigmoid(gate), self.gate_threshold).to(torch.int32).squeeze(1)
            not_finished = not_finished * dec
            mel_lengths += not_finished
            frames.append(frame)
            if torch.sum(not_finished) == 0:
                break
        return torch.stack(frames, dim=2), mel_lengths


class Tacotron2Model(nn.Module):
    def __init__(self, n_symbols=64, enc_dim=512):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, enc_dim)
        self.encoder = nn.LSTM(enc_dim, enc_dim // 2, batch_first=True, bidirectional=True)
        self.decoder = Decoder(enc_dim=enc_dim)

    def parse(self, text):
        ids = [min(ord(c) - 32, 63) for c in text.lower() if 32 <= ord(c) < 127]
        return torch.tensor([ids], dtype=torch.long, device=self.embedding.weight.device)

    @torch.no_grad()
    def generate_spectrogram(self, tokens):
        memory, _ = self.encoder(self.embedding(tokens))
        spec, _ = self.decoder.infer(memory)
        return spec


if __name__ == "__main__":
    # the model is run on the CPU although the machine has a GPU
    spec_generator = Tacotron2Model().to("cpu")
    spec_generator.eval()
    parsed = spec_generator.parse("You can type your sentence here to get speech.")
    spectrogram = spec_generator.generate_spectrogram(tokens=parsed)
    print(spectrogram.shape)
