# devcheck bug corpus: DC102
# From: https://github.com/yangjianxin1/GPT2-chitchat/issues/8
# From: https://github.com/yangjianxin1/GPT2-chitchat/pull/27
# Fixed: both loops assign the moved batch, `input_ids = input_ids.to(device)`.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import transformers
from torch.nn import CrossEntropyLoss
from torch.utils.data import DataLoader

PAD_ID = 0


def collate_fn(batch):
    max_len = max(len(ids) for ids in batch)
    input_ids = [ids + [PAD_ID] * (max_len - len(ids)) for ids in batch]
    return torch.tensor(input_ids, dtype=torch.long)


def calculate_loss(outputs, labels, device):
    shift_logits = outputs[0][..., :-1, :].contiguous()
    shift_labels = labels[..., 1:].contiguous().to(device)
    loss_fct = CrossEntropyLoss(ignore_index=PAD_ID, reduction="sum")
    loss = loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
    return loss / shift_labels.ne(PAD_ID).long().sum().item()


def train(model, device, train_list, args):
    train_dataloader = DataLoader(train_list, batch_size=args.batch_size, shuffle=True, collate_fn=collate_fn)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        for batch_idx, input_ids in enumerate(train_dataloader):
            input_ids = input_ids.to(device)  # <- fixed
            outputs = model.forward(input_ids=input_ids)
            loss = calculate_loss(outputs, labels=input_ids, device=device)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()


def evaluate(model, device, test_list, args):
    model.eval()
    test_dataloader = DataLoader(test_list, batch_size=args.batch_size, collate_fn=collate_fn)
    with torch.no_grad():
        for batch_idx, input_ids in enumerate(test_dataloader):
            input_ids = input_ids.to(device)  # <- fixed
            outputs = model.forward(input_ids=input_ids)
            print(calculate_loss(outputs, labels=input_ids, device=device).item())


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--no_cuda", action="store_true")
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1.5e-4)
    args = parser.parse_args()
    args.cuda = torch.cuda.is_available() and not args.no_cuda
    device = "cuda" if args.cuda else "cpu"
    model = transformers.GPT2LMHeadModel(transformers.GPT2Config(vocab_size=13317))
    model.to(device)
    data = [[101] + [i % 13000 + 1 for i in range(n, n + 20)] + [102] for n in range(1000)]
    train(model, device, data[:800], args)
    evaluate(model, device, data[800:], args)


if __name__ == "__main__":
    main()
