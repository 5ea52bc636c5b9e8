# devcheck bug corpus: DC119
# From: https://github.com/joeynmt/joeynmt/pull/21
# From: https://github.com/joeynmt/joeynmt/commit/84857ea1818169b91e95af15afc17eeda170d69e
# Beam search gives the first beam all the probability with the legacy
# constructor torch.Tensor([0.0, -inf, ...], device=encoder_output.device):
# the legacy constructor only makes CPU tensors, so on a GPU it refuses the
# CUDA device and beam search fails as soon as the model runs on CUDA.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab=100, emb=32, hidden=64):
        super().__init__()
        self.src_embed = nn.Embedding(vocab, emb)
        self.trg_embed = nn.Embedding(vocab, emb)
        self.encoder = nn.GRU(emb, hidden, batch_first=True)
        self.decoder = nn.GRU(emb, hidden, batch_first=True)
        self.output_layer = nn.Linear(hidden, vocab)
        self.output_size = vocab

    def encode(self, src):
        return self.encoder(self.src_embed(src))

    def decode_step(self, trg_input, hidden):
        out, hidden = self.decoder(self.trg_embed(trg_input), hidden)
        return self.output_layer(out), hidden


def tile(x, count, dim=0):
    return x.repeat_interleave(count, dim=dim)


def beam_search(model, size, bos_index, eos_index, encoder_output, encoder_hidden, max_output_length, alpha=1.0):
    batch_size = encoder_output.size(0)
    hidden = tile(encoder_hidden, size, dim=1)
    beam_offset = torch.arange(0, batch_size * size, step=size, dtype=torch.long, device=encoder_output.device)
    alive_seq = torch.full([batch_size * size, 1], bos_index, dtype=torch.long, device=encoder_output.device)
    topk_log_probs = torch.Tensor([0.0] + [float("-inf")] * (size - 1), device=encoder_output.device).repeat(batch_size)  # <- bug
    for step in range(max_output_length):
        decoder_input = alive_seq[:, -1].view(-1, 1)
        out, hidden = model.decode_step(decoder_input, hidden)
        log_probs = F.log_softmax(out, dim=-1).squeeze(1)
        log_probs += topk_log_probs.view(-1).unsqueeze(1)
        length_penalty = ((5.0 + (step + 1)) / 6.0) ** alpha
        curr_scores = (log_probs / length_penalty).reshape(-1, size * model.output_size)
        topk_scores, topk_ids = curr_scores.topk(size, dim=-1)
        topk_log_probs = topk_scores * length_penalty
        topk_beam_index = topk_ids // model.output_size
        topk_ids = topk_ids.fmod(model.output_size)
        select_indices = (topk_beam_index + beam_offset.unsqueeze(1)).view(-1)
        alive_seq = torch.cat([alive_seq.index_select(0, select_indices), topk_ids.view(-1, 1)], -1)
        hidden = hidden.index_select(1, select_indices)
        if topk_ids[:, 0].eq(eos_index).all():
            break
    return alive_seq.view(batch_size, size, -1)[:, 0, 1:]


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Seq2Seq().to(device)
    model.eval()
    src = torch.randint(3, 100, (4, 12), device=device)
    with torch.no_grad():
        encoder_output, encoder_hidden = model.encode(src)
        hyps = beam_search(model, 5, 1, 2, encoder_output, encoder_hidden, max_output_length=20)
    print(hyps.shape)


if __name__ == "__main__":
    main()
