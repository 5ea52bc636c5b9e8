# devcheck bug corpus: DC101
# From: https://github.com/kaylode/caption-transformer/issues/3
# Batched beam search for captioning: the beam's token buffer is made with
# torch.zeros(...) without device=, on the CPU, while the top-k indices come
# from the decoder's output on the GPU; k_best_outputs indexes the CPU buffer
# with them: "indices should be either on cpu or on the same device as the
# indexed tensor (cpu)".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


def subsequent_mask(batch_size, size):
    return torch.tril(torch.ones(batch_size, size, size)).bool()


class Captioner(nn.Module):
    def __init__(self, feat_dim=256, d_model=128, vocab=1000):
        super().__init__()
        self.proj = nn.Linear(feat_dim, d_model)
        self.embed = nn.Embedding(vocab, d_model)
        self.layer = nn.TransformerDecoderLayer(d_model, 4, batch_first=True)
        self.out = nn.Linear(d_model, vocab)

    def encoder(self, feats):
        return self.proj(feats)

    def decoder(self, tokens, memory, trg_mask):
        causal = ~trg_mask[0]
        return self.layer(self.embed(tokens), memory, tgt_mask=causal)


def beam_search(model, feats, bos_id, max_len=16, k=3, alpha=0.6):
    def init_vars(feats, device):
        batch_size = feats.shape[0]
        memory = model.encoder(feats)
        ys = torch.ones(batch_size, 1).fill_(bos_id).long()
        out = model.decoder(ys.to(device), memory, subsequent_mask(batch_size, 1).to(device))
        probs, ix = F.softmax(model.out(out[:, -1]), dim=-1).topk(k, dim=1)
        beams = torch.zeros(batch_size, k, max_len).long()  # <- bug
        beams[:, :, 0] = bos_id
        beams[:, :, 1] = ix[:, :1]
        return beams, memory, torch.log(probs)

    def k_best_outputs(outputs, out, log_scores, i):
        probs, ix = out.topk(k, dim=1)
        log_probs = torch.log(probs) + log_scores.transpose(0, 1)
        k_probs, k_ix = log_probs.view(-1).topk(k)
        row = k_ix // k
        col = k_ix % k
        outputs[:, :i] = outputs[row, :i]  # <- bug
        outputs[:, i] = ix[row, col]
        return outputs, k_probs.unsqueeze(0)

    model.eval()
    device = next(model.parameters()).device
    beams, memory, log_scores = init_vars(feats, device)
    results = []
    for b in range(feats.shape[0]):
        ys_k = beams[b]
        memory_k = memory[b:b + 1].expand(k, -1, -1)
        log_scores_k = log_scores[b].unsqueeze(0)
        for i in range(2, max_len):
            out = model.decoder(ys_k[:, :i].to(device), memory_k, subsequent_mask(1, i).to(device))
            out = F.softmax(model.out(out[:, -1]), dim=-1)
            ys_k, log_scores_k = k_best_outputs(ys_k, out, log_scores_k, i)
            log_scores_k = log_scores_k / (((5.0 + (i + 1)) / 6.0) ** alpha)
        best = log_scores_k.argmax(dim=1)
        results.append(ys_k[best].detach().cpu().numpy().tolist())
    return results


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = Captioner().to(device)
    feats = torch.randn(2, 36, 256).to(device)
    with torch.no_grad():
        print(beam_search(model, feats, bos_id=101))
