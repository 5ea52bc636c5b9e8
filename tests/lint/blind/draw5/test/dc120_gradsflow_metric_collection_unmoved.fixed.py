# devcheck bug corpus: DC120
# From: https://github.com/gradsflow/gradsflow-automl/issues/105
# From: https://github.com/gradsflow/gradsflow-automl/pull/110
# Fixed: the MetricCollection is moved to the model's device when it is made,
# and again after metrics are added to it, so its states sit where the
# learner's logits are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from accelerate import Accelerator
from torch import nn
from torchmetrics import Accuracy, F1Score, MetricCollection

METRICS = {"accuracy": Accuracy, "f1": F1Score}


class BaseModel:
    def __init__(self, learner, device=None, use_accelerate=True):
        self.accelerator = None
        if use_accelerate:
            self.accelerator = Accelerator(cpu=(device == "cpu"))
            self.device = self.accelerator.device
        else:
            self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.learner = self.prepare_model(learner)
        self.metrics = MetricCollection([]).to(self.device)  # <- fixed

    def prepare_model(self, learner):
        if not self.accelerator:
            return learner.to(self.device)
        return self.accelerator.prepare_model(learner)

    def add_metrics(self, *metrics):
        for m in metrics:
            m_obj = METRICS[m](num_classes=10) if isinstance(m, str) else m
            self.metrics.add_metrics(m_obj)
        self.metrics.to(self.device)  # <- fixed


class Model(BaseModel):
    def compile(self, loss="crossentropyloss", optimizer="adam", learning_rate=3e-4, metrics=None):
        self.loss = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.learner.parameters(), lr=learning_rate)
        if self.accelerator:
            self.optimizer = self.accelerator.prepare_optimizer(self.optimizer)
        self.add_metrics(*(metrics or []))

    def calculate_metrics(self, preds, target):
        self.metrics.update(preds, target)
        return self.metrics.compute()

    def train_step(self, batch):
        inputs, target = batch
        self.optimizer.zero_grad()
        logits = self.learner(inputs)
        loss = self.loss(logits, target)
        self.accelerator.backward(loss) if self.accelerator else loss.backward()
        self.optimizer.step()
        return {"loss": loss, "metrics": self.calculate_metrics(logits, target)}

    def fit(self, train_dataloader, max_epochs=1):
        if self.accelerator:
            train_dataloader = self.accelerator.prepare_data_loader(train_dataloader)
        for epoch in range(max_epochs):
            for batch in train_dataloader:
                if not self.accelerator:
                    batch = [t.to(self.device) for t in batch]
                outputs = self.train_step(batch)
                print(epoch, outputs["loss"].item(), outputs["metrics"])


if __name__ == "__main__":
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randn(256, 32), torch.randint(0, 10, (256,)))
    model = Model(nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)))
    model.compile(metrics=["accuracy", "f1"])
    model.fit(DataLoader(data, batch_size=32), max_epochs=2)
