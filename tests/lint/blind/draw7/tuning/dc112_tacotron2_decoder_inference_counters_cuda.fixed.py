# devcheck bug corpus: DC112
# From: https://github.com/NVIDIA/DeepLearningExamples/pull/463
# The fix makes the decoder's counters on the device of the encoder outputs
# (.to(memory.device)) instead of the current CUDA device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class Prenet(nn.Module):
    def __init__(self, in_dim, sizes=(256, 256)):
        super().__init__()
        dims = [in_dim] + list(sizes)
        self.layers = nn.ModuleList([nn.Linear(a, b, bias=False) for a, b in zip(dims[:-1], dims[1:])])

    def forward(self, x):
        for linear in self.layers:
            x = nn.functional.dropout(torch.relu(linear(x)), p=0.5, training=True)
        return x


class Decoder(nn.Module):
    def __init__(self, n_mel=80, enc_dim=512, rnn_dim=1024, max_steps=2000, gate_threshold=0.5):
        super().__init__()
        self.n_mel, self.max_decoder_steps, self.gate_threshold = n_mel, max_steps, gate_threshold
        self.prenet = Prenet(n_mel)
        self.rnn = nn.LSTMCell(256 + enc_dim, rnn_dim)
        self.proj = nn.Linear(rnn_dim + enc_dim, n_mel)
        self.gate = nn.Linear(rnn_dim + enc_dim, 1)
        self.rnn_dim = rnn_dim

    def inference(self, memory):
        b = memory.size(0)
        decoder_input = memory.new_zeros(b, self.n_mel)
        h = memory.new_zeros(b, self.rnn_dim)
        c = memory.new_zeros(b, self.rnn_dim)
        context = memory.mean(1)
        mel_lengths = torch.zeros([b], dtype=torch.int32).to(memory.device)  # <- fixed
        not_finished = torch.ones([b], dtype=torch.int32).to(memory.device)  # <- fixed
        mel_outputs = []
        while True:
            x = self.prenet(decoder_input)
            h, c = self.rnn(torch.cat((x, context), -1), (h, c))
            out = torch.cat((h, context), -1)
            mel_output, gate_output = self.proj(out), self.gate(out)
            mel_outputs.append(mel_output)
            dec = torch.le(torch.sigmoid(gate_output), self.gate_threshold).to(torch.int32).squeeze(1)
            not_finished = not_finished * dec
            mel_lengths += not_finished
            if torch.sum(not_finished) == 0 or len(mel_outputs) == self.max_decoder_steps:
                break
            decoder_input = mel_output
        return torch.stack(mel_outputs, 2), mel_lengths


class Tacotron2(nn.Module):
    def __init__(self, n_symbols=148, emb_dim=512):
        super().__init__()
        self.embedding = nn.Embedding(n_symbols, emb_dim)
        self.encoder = nn.LSTM(emb_dim, emb_dim // 2, batch_first=True, bidirectional=True)
        self.decoder = Decoder(enc_dim=emb_dim)

    def infer(self, inputs):
        memory, _ = self.encoder(self.embedding(inputs))
        return self.decoder.inference(memory)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--checkpoint", default="nvidia_tacotron2pyt_fp32.pt")
    parser.add_argument("--cpu", action="store_true")
    args = parser.parse_args()
    device = torch.device("cpu" if args.cpu or not torch.cuda.is_available() else "cuda")
    tacotron2 = Tacotron2()
    tacotron2.load_state_dict(torch.load(args.checkpoint, map_location="cpu")["state_dict"])
    tacotron2 = tacotron2.to(device).eval()
    sequence = torch.randint(0, 148, (1, 60), device=device)
    with torch.no_grad():
        mel, mel_lengths = tacotron2.infer(sequence)
    print(mel.shape, mel_lengths)
