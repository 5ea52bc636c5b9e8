# devcheck bug corpus: DC105
# From: https://github.com/computationalmedia/semstyle/issues/3
# The fix made in the thread: give the GPU path's load a map_location too,
# mapping the saved cuda:2 storages onto the GPU the script uses (written
# here as "cuda:<device>").
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn

cuda = True
device = 0

model_path = "./models/"
seq_to_seq_test_model_fname = "seq_to_txt_state.tar"


class Encoder(nn.Module):
    def __init__(self, vocab_size, hid_size):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, hid_size)
        self.rnn = nn.GRU(hid_size, hid_size, batch_first=True)

    def forward(self, x):
        return self.rnn(self.emb(x))


class Decoder(nn.Module):
    def __init__(self, vocab_size, hid_size):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, hid_size)
        self.rnn = nn.GRU(hid_size, hid_size, batch_first=True)
        self.out = nn.Linear(hid_size, vocab_size)

    def forward(self, x, hid):
        out, hid = self.rnn(self.emb(x), hid)
        return torch.log_softmax(self.out(out), dim=-1), hid


def build_model(enc_vocab_size, dec_vocab_size, hid_size=512, loaded_state=None):
    enc = Encoder(enc_vocab_size, hid_size)
    dec = Decoder(dec_vocab_size, hid_size)
    if loaded_state is not None:
        enc.load_state_dict(loaded_state["enc"])
        dec.load_state_dict(loaded_state["dec"])
    if cuda:
        enc = enc.cuda(device=device)
        dec = dec.cuda(device=device)
    return enc, dec


def setup_test():
    if not cuda:
        loaded_state = torch.load(model_path + seq_to_seq_test_model_fname, map_location="cpu")
    else:
        loaded_state = torch.load(model_path + seq_to_seq_test_model_fname,  # <- fixed
                                  map_location="cuda:%d" % device)  # <- fixed
    enc_vocab = loaded_state["enc_idx_to_word"]
    dec_vocab = loaded_state["dec_idx_to_word"]
    enc, dec = build_model(len(enc_vocab), len(dec_vocab), loaded_state=loaded_state)
    return {"enc": enc, "dec": dec, "enc_word_to_idx": loaded_state["enc_word_to_idx"],
            "dec_idx_to_word": dec_vocab}


def main():
    global cuda
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", action="store_true")
    args = ap.parse_args()
    if args.cpu:
        cuda = False
    data = setup_test()
    print(len(data["dec_idx_to_word"]), "output words")


if __name__ == "__main__":
    main()
