# devcheck bug corpus: DC101
# From: https://github.com/BindsNET/bindsnet/issues/458
# From: https://github.com/BindsNET/bindsnet/commit/d58b512b1a2f4d51a27154f9767221f0b74e8c96
# The SOM/LM-SNN MNIST example runs the network on the GPU with --gpu; the
# training phase records spikes in a tensor made on the device, but the test
# phase makes a new spike_record with torch.zeros and no device, so
# all_activity/proportion_weighting index it with the CUDA label assignments.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
from torchvision import transforms

from bindsnet.datasets import MNIST
from bindsnet.encoding import PoissonEncoder
from bindsnet.evaluation import all_activity, assign_labels, proportion_weighting
from bindsnet.models import IncreasingInhibitionNetwork
from bindsnet.network.monitors import Monitor

parser = argparse.ArgumentParser()
parser.add_argument("--n_neurons", type=int, default=100)
parser.add_argument("--n_train", type=int, default=1000)
parser.add_argument("--n_test", type=int, default=100)
parser.add_argument("--time", type=int, default=250)
parser.add_argument("--dt", type=float, default=1.0)
parser.add_argument("--intensity", type=float, default=64)
parser.add_argument("--update_interval", type=int, default=250)
parser.add_argument("--gpu", dest="gpu", action="store_true")
args = parser.parse_args()

device = torch.device("cuda" if torch.cuda.is_available() and args.gpu else "cpu")
n_neurons, n_classes = args.n_neurons, 10
time, dt, update_interval = args.time, args.dt, args.update_interval
steps = int(time / dt)

network = IncreasingInhibitionNetwork(n_input=784, n_neurons=n_neurons, dt=dt)
network.to(device)
spikes = Monitor(network.layers["Y"], state_vars=["s"], time=steps, device=device)
network.add_monitor(spikes, name="Y_spikes")

encoder = PoissonEncoder(time=time, dt=dt)
to_tensor = transforms.Compose([transforms.ToTensor(), transforms.Lambda(lambda x: x * args.intensity)])
train_dataset = MNIST(encoder, None, root="data/MNIST", download=True, transform=to_tensor)
test_dataset = MNIST(encoder, None, root="data/MNIST", download=True, train=False, transform=to_tensor)

spike_record = torch.zeros((update_interval, steps, n_neurons), device=device)
assignments = -torch.ones(n_neurons, device=device)
proportions = torch.zeros((n_neurons, n_classes), device=device)
rates = torch.zeros((n_neurons, n_classes), device=device)
labels = []

for step, batch in enumerate(train_dataset):
    if step >= args.n_train:
        break
    if step % update_interval == 0 and step > 0:
        label_tensor = torch.tensor(labels, device=device)
        assignments, proportions, rates = assign_labels(spike_record, label_tensor, n_classes, rates)
        labels = []
    labels.append(batch["label"])
    inputs = {"X": batch["encoded_image"].view(steps, 1, 1, 28, 28).to(device)}
    network.run(inputs=inputs, time=time, input_time_dim=1)
    spike_record[step % update_interval].copy_(spikes.get("s").squeeze())
    network.reset_state_variables()

accuracy = {"all": 0.0, "proportion": 0.0}
spike_record = torch.zeros(1, steps, n_neurons)  # <- bug
network.train(mode=False)
for step, batch in enumerate(test_dataset):
    if step >= args.n_test:
        break
    inputs = {"X": batch["encoded_image"].view(steps, 1, 1, 28, 28).to(device)}
    network.run(inputs=inputs, time=time, input_time_dim=1)
    spike_record[0] = spikes.get("s").squeeze()
    label_tensor = torch.tensor(batch["label"], device=device)
    all_activity_pred = all_activity(spikes=spike_record, assignments=assignments, n_labels=n_classes)
    proportion_pred = proportion_weighting(
        spikes=spike_record, assignments=assignments, proportions=proportions, n_labels=n_classes
    )
    accuracy["all"] += float(torch.sum(label_tensor.long() == all_activity_pred).item())
    accuracy["proportion"] += float(torch.sum(label_tensor.long() == proportion_pred).item())
    network.reset_state_variables()

print("all activity accuracy: %.2f" % (accuracy["all"] / args.n_test))
print("proportion weighting accuracy: %.2f" % (accuracy["proportion"] / args.n_test))
