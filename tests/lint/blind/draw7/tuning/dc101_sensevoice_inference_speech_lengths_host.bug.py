# devcheck bug corpus: DC101
# From: https://github.com/pengzhendong/streaming-sensevoice/pull/1
# Streaming SenseVoice: inference() builds speech_lengths with a bare
# torch.tensor on the host while the features and the model are on the GPU;
# the encoder derives its padding mask on lengths.device, so the CPU mask is
# multiplied into the GPU activations inside the first FSMN attention block.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def length_mask(lengths, maxlen=None):
    if maxlen is None:
        maxlen = int(lengths.max())
    steps = torch.arange(maxlen, device=lengths.device)
    return (steps[None, :] < lengths[:, None]).float()


class FsmnAttention(nn.Module):
    def __init__(self, d=64, heads=4, kernel=11):
        super().__init__()
        self.h, self.dk = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.fsmn = nn.Conv1d(d, d, kernel, padding=kernel // 2, groups=d, bias=False)

    def memory(self, v, mask):
        b = v.size(0)
        mask = mask.reshape(b, -1, 1)
        v = v * mask
        m = self.fsmn(v.transpose(1, 2)).transpose(1, 2) + v
        return m * mask

    def forward(self, x, mask):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        mem = self.memory(v, mask)
        q = q.view(b, t, self.h, self.dk).transpose(1, 2) * self.dk ** -0.5
        k = k.view(b, t, self.h, self.dk).transpose(1, 2)
        vh = v.view(b, t, self.h, self.dk).transpose(1, 2)
        pad = mask.unsqueeze(1).unsqueeze(2).eq(0)
        scores = (q @ k.transpose(-2, -1)).masked_fill(pad, float("-inf"))
        ctx = torch.softmax(scores, dim=-1).masked_fill(pad, 0.0) @ vh
        return self.out(ctx.transpose(1, 2).reshape(b, t, d)) + mem


class Encoder(nn.Module):
    def __init__(self, d_in=560, d=64, layers=2):
        super().__init__()
        self.proj = nn.Linear(d_in, d)
        self.layers = nn.ModuleList([FsmnAttention(d) for _ in range(layers)])
        self.norm = nn.LayerNorm(d)

    def forward(self, feats, lengths):
        mask = length_mask(lengths)
        x = self.proj(feats)
        for layer in self.layers:
            x = x + layer(x, mask)
        return self.norm(x)


class SenseVoiceSmall(nn.Module):
    def __init__(self, vocab=100, d_in=560):
        super().__init__()
        self.embed = nn.Embedding(16, d_in)
        self.encoder = Encoder(d_in)
        self.ctc = nn.Linear(64, vocab)

    def inference(self, speech):
        speech = speech[None, :, :]
        speech_lengths = torch.tensor([speech.shape[1]])  # <- bug
        queries = self.embed(torch.LongTensor([[3, 1, 2, 14]]).to(speech.device))
        speech = torch.cat((queries, speech), dim=1)
        speech_lengths += 4
        out = self.encoder(speech, speech_lengths)
        return self.ctc(out).log_softmax(-1)[0, 4:]


def main():
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = SenseVoiceSmall().to(device).eval()
    chunk = torch.randn(26, 560)
    with torch.no_grad():
        print(model.inference(chunk.to(device)).argmax(-1))


if __name__ == "__main__":
    main()
