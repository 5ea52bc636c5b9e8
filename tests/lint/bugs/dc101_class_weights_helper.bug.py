# devcheck bug corpus: DC101
# From: https://github.com/sacdallago/biotrainer/issues/67
# With use_class_weights on, the class weights computed from the training
# labels were given to the loss on the CPU while the model trained on the GPU;
# the fix sends them to the device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


def compute_class_weights(labels, num_classes):
    counts = [0] * num_classes
    for label in labels:
        counts[label] += 1
    total = sum(counts)
    return torch.tensor([total / (num_classes * c) for c in counts])  # <- bug


class Solver:
    def __init__(self, model, train_labels, num_classes, device):
        self.device = device
        self.model = model.to(device)
        weights = compute_class_weights(train_labels, num_classes)
        self.loss_fn = nn.CrossEntropyLoss(weight=weights)  # <- bug

    def training_step(self, embeddings, targets):
        logits = self.model(embeddings.to(self.device))
        return self.loss_fn(logits, targets.to(self.device))
