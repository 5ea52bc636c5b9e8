# devcheck bug corpus: DC122
# From: https://github.com/autrainer/autrainer/pull/146
# Continuing a run: the trainer built its optimizer and loaded the saved
# optimizer state while the model was still on the CPU and moved the model to
# the training device afterwards, leaving the optimizer's state on the wrong
# device. The fix loads the state once the model is where it trains.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class ModularTaskTrainer:
    def __init__(self, model, optimizer_cls, device, state_path=None):
        self.model = model
        self.device = device
        self.optimizer = optimizer_cls(self.model.parameters(), lr=1e-3)
        if state_path is not None:
            state = torch.load(state_path, map_location="cpu")
            self.optimizer.load_state_dict(state["optimizer"])  # <- bug
        self.model = self.model.to(self.device)  # <- bug

    def train_step(self, x, y):
        loss = torch.nn.functional.cross_entropy(self.model(x.to(self.device)), y.to(self.device))
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
