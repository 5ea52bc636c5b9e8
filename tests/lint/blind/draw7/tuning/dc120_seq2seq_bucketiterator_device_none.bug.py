# devcheck bug corpus: DC120
# From: https://github.com/IBM/pytorch-seq2seq/pull/191
# The trainer and the evaluator build their torchtext BucketIterators with
# device=None when CUDA is available (the old convention for "current GPU");
# newer torchtext reads None as the CPU, so the batches stay on the host and
# reach the embedding of the model example.py moved to the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torchtext

SRC_FIELD, TGT_FIELD = "src", "tgt"


class Seq2seq(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, hidden=128):
        super().__init__()
        self.src_emb = nn.Embedding(src_vocab, hidden)
        self.tgt_emb = nn.Embedding(tgt_vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.decoder = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, tgt_vocab)

    def forward(self, src, src_lengths, tgt):
        _, h = self.encoder(self.src_emb(src))
        dec, _ = self.decoder(self.tgt_emb(tgt[:, :-1]), h)
        return self.out(dec)


class Evaluator:
    def __init__(self, loss, batch_size=64):
        self.loss = loss
        self.batch_size = batch_size

    def evaluate(self, model, data):
        model.eval()
        device = None if torch.cuda.is_available() else -1  # <- bug
        batch_iterator = torchtext.data.BucketIterator(
            dataset=data, batch_size=self.batch_size, sort=True,
            sort_key=lambda x: len(x.src), device=device, train=False)
        total, n = 0.0, 0
        with torch.no_grad():
            for batch in batch_iterator:
                src, src_lengths = getattr(batch, SRC_FIELD)
                tgt = getattr(batch, TGT_FIELD)
                logits = model(src, src_lengths.tolist(), tgt)
                total += self.loss(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1)).item()
                n += 1
        return total / max(n, 1)


class SupervisedTrainer:
    def __init__(self, loss, batch_size=64):
        self.loss = loss
        self.batch_size = batch_size
        self.evaluator = Evaluator(loss, batch_size)

    def train(self, model, data, n_epochs, dev_data=None):
        optimizer = torch.optim.Adam(model.parameters())
        device = None if torch.cuda.is_available() else -1  # <- bug
        batch_iterator = torchtext.data.BucketIterator(
            dataset=data, batch_size=self.batch_size, sort=False, sort_within_batch=True,
            sort_key=lambda x: len(x.src), device=device, repeat=False)
        for epoch in range(1, n_epochs + 1):
            model.train(True)
            for batch in batch_iterator:
                src, src_lengths = getattr(batch, SRC_FIELD)
                tgt = getattr(batch, TGT_FIELD)
                logits = model(src, src_lengths.tolist(), tgt)
                loss = self.loss(logits.reshape(-1, logits.size(-1)), tgt[:, 1:].reshape(-1))
                model.zero_grad()
                loss.backward()
                optimizer.step()
            if dev_data is not None:
                print("epoch", epoch, "dev loss", self.evaluator.evaluate(model, dev_data))
        return model


def load_dataset(path, src_field, tgt_field):
    return torchtext.data.TabularDataset(path=path, format="tsv", fields=[(SRC_FIELD, src_field), (TGT_FIELD, tgt_field)])


if __name__ == "__main__":
    src = torchtext.data.Field(batch_first=True, include_lengths=True)
    tgt = torchtext.data.Field(batch_first=True, init_token="<sos>", eos_token="<eos>")
    train, dev = load_dataset("data/train.tsv", src, tgt), load_dataset("data/dev.tsv", src, tgt)
    src.build_vocab(train, max_size=50000)
    tgt.build_vocab(train, max_size=50000)
    seq2seq = Seq2seq(len(src.vocab), len(tgt.vocab))
    if torch.cuda.is_available():
        seq2seq.cuda()
    loss = nn.CrossEntropyLoss(ignore_index=tgt.vocab.stoi[tgt.pad_token])
    SupervisedTrainer(loss, batch_size=32).train(seq2seq, train, n_epochs=6, dev_data=dev)
