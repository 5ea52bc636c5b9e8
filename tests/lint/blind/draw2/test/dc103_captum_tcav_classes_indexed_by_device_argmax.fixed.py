# devcheck bug corpus: DC103
# From: https://github.com/meta-pytorch/captum/pull/1189
# Fixed: the argmax of the predictions is brought to the CPU, where the
# class labels are, before indexing them (the labels are still made there).
# Written for devcheck's tests after the thread; not the project's code.
import random

import numpy as np
import sklearn.linear_model
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SkLearnSGDClassifier(nn.Module):
    def __init__(self, **kwargs):
        super().__init__()
        self.construct_kwargs = kwargs
        self.linear = None
        self.class_labels = None
        self.device = "cpu"

    def fit(self, dataloader):
        xs, ys = [], []
        for x, y in dataloader:
            xs.append(x.cpu().numpy())
            ys.append(y.cpu().numpy())
        sklearn_model = sklearn.linear_model.SGDClassifier(**self.construct_kwargs)
        sklearn_model.fit(np.concatenate(xs), np.concatenate(ys))
        self.class_labels = torch.IntTensor(sklearn_model.classes_)  # <- fixed
        weight = torch.FloatTensor(sklearn_model.coef_).to(self.device)
        self.linear = nn.Linear(weight.shape[1], weight.shape[0]).to(self.device)
        self.linear.weight.data = weight
        self.linear.bias.data = torch.FloatTensor(sklearn_model.intercept_).to(self.device)

    def forward(self, x):
        return self.linear(x)

    def classes(self):
        return self.class_labels.detach()


class DefaultClassifier:
    def __init__(self):
        self.lm = SkLearnSGDClassifier(alpha=0.01, max_iter=1000, tol=1e-3)

    def train_and_eval(self, dataloader, test_split_ratio=0.33):
        inputs, labels = [], []
        for input, label in dataloader:
            inputs.append(input)
            labels.append(label)
        device = "cpu" if input is None else input.device
        pairs = list(zip(torch.cat(inputs), torch.cat(labels)))
        random.shuffle(pairs)
        test_size = int(test_split_ratio * len(pairs))
        x_test, y_test = map(torch.stack, zip(*pairs[:test_size]))
        x_train, y_train = map(torch.stack, zip(*pairs[test_size:]))
        self.lm.device = device
        self.lm.fit(DataLoader(TensorDataset(x_train, y_train)))
        predict = self.lm(x_test)
        predict = self.lm.classes()[torch.argmax(predict, dim=1).cpu()]  # <- fixed
        score = predict.long() == y_test.long().cpu()
        return {"accs": score.float().mean()}


if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    acts = torch.randn(64, 16, device=device)
    concept_labels = torch.randint(0, 2, (64,), device=device)
    print(DefaultClassifier().train_and_eval(DataLoader(TensorDataset(acts, concept_labels), batch_size=16)))
