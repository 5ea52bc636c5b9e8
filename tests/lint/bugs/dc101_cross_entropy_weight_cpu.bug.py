# devcheck bug corpus: DC101
# From: https://github.com/pytorch/pytorch/issues/122757
# From: https://github.com/pytorch/pytorch/issues/3879
# The model's output and the labels are on the GPU but the class weights given
# to CrossEntropyLoss were made on the CPU: "Expected all tensors to be on the
# same device".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(16, 5).to(device)
weights = torch.tensor([1.0, 2.0, 2.0, 4.0, 8.0])  # <- bug
loss_fn = nn.CrossEntropyLoss(weight=weights)  # <- bug


def step(features, labels):
    model_output = model(features.to(device))
    return loss_fn(input=model_output, target=labels.to(device))
