# devcheck bug corpus: DC103
# From: https://github.com/deepchem/deepchem/pull/4738
# Fixed as the PR describes: get_batch makes its tensors on the device of the
# learner's weights (self.w1.device), so they follow the restored CUDA
# weights, and the test copies the loss to the host before .numpy().
# Written for devcheck's tests after the thread; not the project's code.
import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F


class SineLearner:
    def __init__(self):
        self.batch_size = 10
        self.w1 = torch.nn.Parameter(torch.tensor(np.random.normal(size=[1, 40])))
        self.w2 = torch.nn.Parameter(torch.tensor(np.random.normal(size=[40, 40], scale=np.sqrt(1 / 40))))
        self.w3 = torch.nn.Parameter(torch.tensor(np.random.normal(size=[40, 1], scale=np.sqrt(1 / 40))))
        self.b1 = torch.nn.Parameter(torch.tensor(np.zeros(40)))
        self.b2 = torch.nn.Parameter(torch.tensor(np.zeros(40)))
        self.b3 = torch.nn.Parameter(torch.tensor(np.zeros(1)))

    def compute_model(self, inputs, variables, training):
        x, y = inputs
        w1, w2, w3, b1, b2, b3 = variables
        hidden = F.relu(torch.matmul(x, w1) + b1)
        hidden = F.relu(torch.matmul(hidden, w2) + b2)
        output = torch.matmul(hidden, w3) + b3
        return torch.mean(torch.square(output - y)), [output]

    @property
    def variables(self):
        return [self.w1, self.w2, self.w3, self.b1, self.b2, self.b3]

    def select_task(self):
        self.amplitude = 5.0 * np.random.random()
        self.phase = np.pi * np.random.random()

    def get_batch(self):
        device = self.w1.device  # <- fixed
        x = np.random.uniform(-5.0, 5.0, (self.batch_size, 1))
        y = self.amplitude * np.sin(x + self.phase)
        return [torch.tensor(x, device=device), torch.tensor(y, device=device)]  # <- fixed

    def parameters(self):
        return [v for v in self.__dict__.values() if isinstance(v, torch.nn.Parameter)]


class MAML:
    def __init__(self, learner, learning_rate=0.001, meta_batch_size=4):
        self.learner = learner
        self.learning_rate = learning_rate
        self.meta_batch_size = meta_batch_size
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.save_file = os.path.join(tempfile.mkdtemp(), "model.pt")
        self.optimizer = torch.optim.Adam(learner.parameters(), lr=5e-3)

    def fit(self, steps):
        variables = self.learner.variables
        for _ in range(steps):
            self.optimizer.zero_grad()
            for _ in range(self.meta_batch_size):
                self.learner.select_task()
                loss, _ = self.learner.compute_model(self.learner.get_batch(), variables, True)
                grads = torch.autograd.grad(loss, variables, create_graph=True)
                updated = [v - self.learning_rate * g for v, g in zip(variables, grads)]
                meta_loss, _ = self.learner.compute_model(self.learner.get_batch(), updated, True)
                meta_loss.backward()
            self.optimizer.step()
        torch.save({"model_state_dict": dict(self.learner.__dict__)}, self.save_file)

    def restore(self):
        data = torch.load(self.save_file, map_location=self.device, weights_only=False)
        self.learner.__dict__ = data["model_state_dict"]

    def predict_on_batch(self, batch):
        return self.learner.compute_model(batch, self.learner.variables, False)


if __name__ == "__main__":
    learner = SineLearner()
    maml = MAML(learner)
    maml.fit(200)
    losses = []
    for _ in range(20):
        learner.select_task()
        maml.restore()
        batch = learner.get_batch()
        loss, outputs = maml.predict_on_batch(batch)
        loss = loss.detach().cpu().numpy()  # <- fixed
        losses.append(np.sqrt(loss))
    print(np.average(losses))
