"""pytorch-ignite's own trainer and evaluator (create_supervised_trainer,
create_supervised_evaluator with Accuracy and Loss) on a small MLP, two
epochs over a synthetic TensorDataset; ignite moves each batch to the
program's device ("cuda" or "cpu") itself.

Prints one JSON line: per-epoch training loss and the evaluator's metrics and
a SHA-256 of the trained parameters, which the CPU run must reproduce.
"""
import hashlib
import json
import sys

import torch
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.metrics import Accuracy, Loss


def main(device):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(20, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
    model.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    loss_fn = torch.nn.CrossEntropyLoss()
    g = torch.Generator().manual_seed(1)
    x = torch.randn(64, 20, generator=g)
    y = torch.randint(0, 4, (64,), generator=g)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=16,
                                         shuffle=True, generator=torch.Generator().manual_seed(2))
    trainer = create_supervised_trainer(model, optimizer, loss_fn, device=device)
    evaluator = create_supervised_evaluator(
        model, metrics={"accuracy": Accuracy(), "loss": Loss(loss_fn)}, device=device)
    losses = []
    trainer.add_event_handler(Events.EPOCH_COMPLETED, lambda e: losses.append(e.state.output))
    trainer.run(loader, max_epochs=2)
    evaluator.run(loader)
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().cpu().numpy().tobytes())
    print(json.dumps({"device": str(next(model.parameters()).device), "losses": losses,
                      "metrics": evaluator.state.metrics, "state": h.hexdigest()}))


if __name__ == "__main__":
    main(sys.argv[1])
