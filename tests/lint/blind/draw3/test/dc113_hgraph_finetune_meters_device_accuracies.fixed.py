# devcheck bug corpus: DC113
# From: https://github.com/wengong-jin/hgraph2graph/issues/40
# Fixed as the answer says: the accuracies are moved to the CPU (.cpu())
# in the np.array added to the meters.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os
import random

import hgraph
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim
from hgraph import HierVAE, PairVocab, common_atom_vocab
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", required=True)
    parser.add_argument("--vocab", required=True)
    parser.add_argument("--save_dir", required=True)
    parser.add_argument("--generative_model", required=True)
    parser.add_argument("--batch_size", type=int, default=20)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--clip_norm", type=float, default=5.0)
    parser.add_argument("--epoch", type=int, default=10)
    parser.add_argument("--inner_epoch", type=int, default=10)
    parser.add_argument("--nsample", type=int, default=10000)
    args = parser.parse_args()
    with open(args.train) as f:
        good_smiles = [line.strip("\r\n ") for line in f]
    args.vocab = PairVocab([x.strip("\r\n ").split() for x in open(args.vocab)])
    args.atom_vocab = common_atom_vocab
    model = HierVAE(args).cuda()
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    model_state, optimizer_state, _, beta = torch.load(args.generative_model)
    model.load_state_dict(model_state)
    optimizer.load_state_dict(optimizer_state)
    for epoch in range(args.epoch):
        good_smiles = sorted(set(good_smiles))
        random.shuffle(good_smiles)
        dataset = hgraph.MoleculeDataset(good_smiles, args.vocab, args.atom_vocab, args.batch_size)
        for _ in range(args.inner_epoch):
            meters = np.zeros(6)
            dataloader = DataLoader(dataset, batch_size=1, collate_fn=lambda x: x[0], shuffle=True, num_workers=16)
            for batch in tqdm(dataloader):
                model.zero_grad()
                loss, kl_div, wacc, iacc, tacc, sacc = model(*batch, beta=beta)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), args.clip_norm)
                optimizer.step()
                meters = meters + np.array([kl_div, loss.item(), wacc.cpu() * 100, iacc.cpu() * 100, tacc.cpu() * 100, sacc.cpu() * 100])  # <- fixed
            meters /= len(dataset)
            print("KL: %.2f, loss: %.3f, Word: %.2f, %.2f, Topo: %.2f, Assm: %.2f" % tuple(meters))
        torch.save((model.state_dict(), optimizer.state_dict(), epoch, beta), os.path.join(args.save_dir, f"model.ckpt.{epoch}"))
        with torch.no_grad():
            decoded = [s for _ in range(args.nsample // args.batch_size) for s in model.sample(args.batch_size, greedy=True)]
        good_smiles.extend(decoded[: args.batch_size])
