# devcheck bug corpus: DC112
# From: https://github.com/maszhongming/MatchSum/pull/10
# Fixed: the all-ones target of the first loss term is made on the scores'
# device, .cuda(score.device), like the loss's other targets.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class MarginRankingLoss:
    def __init__(self, margin):
        self.margin = margin

    def get_loss(self, score, summary_score):
        ones = torch.ones(score.size()).cuda(score.device)  # <- fixed
        total = nn.MarginRankingLoss(0.0)(score, score, ones)
        n = score.size(1)
        for i in range(1, n - 1):
            pos = score[:, :-i].contiguous().view(-1)
            neg = score[:, i:].contiguous().view(-1)
            ones = torch.ones(pos.size()).cuda(score.device)
            total += nn.MarginRankingLoss(self.margin * i)(pos, neg, ones)
        pos = summary_score.unsqueeze(-1).expand_as(score).contiguous().view(-1)
        neg = score.contiguous().view(-1)
        ones = torch.ones(pos.size()).cuda(score.device)
        total += nn.MarginRankingLoss(0.0)(pos, neg, ones)
        return total


class Matcher(nn.Module):
    def __init__(self, hidden=768):
        super().__init__()
        self.proj = nn.Linear(hidden, hidden)

    def forward(self, doc, cands, summary):
        d = self.proj(doc)
        score = torch.cosine_similarity(self.proj(cands), d.unsqueeze(1), dim=-1)
        summary_score = torch.cosine_similarity(self.proj(summary), d, dim=-1)
        return score, summary_score


def train(args, batches):
    devices = [int(g) for g in args.gpus.split(",")]
    model = Matcher().to(torch.device("cuda", devices[0]))
    if len(devices) > 1:
        model = nn.DataParallel(model, device_ids=devices)
    criterion = MarginRankingLoss(args.margin)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    for doc, cands, summary in batches:
        score, summary_score = model(doc, cands, summary)
        loss = criterion.get_loss(score, summary_score)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", default="0,1,2,3")
    parser.add_argument("--margin", type=float, default=0.01)
    parser.add_argument("--lr", type=float, default=2e-5)
    train(parser.parse_args(), [])
