# devcheck bug corpus: DC101
# From: https://github.com/eth-easl/modyn/pull/525
# The fix keeps the trainer's device on the downsampler and starts each
# trigger's score buffer there (torch.tensor([]).to(self._device)).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class IrreducibleLossProducer:
    def __init__(self, per_sample_loss, il_model, device):
        self.loss = per_sample_loss
        self.model = il_model.to(device)
        self.device = device

    def get_irreducible_loss(self, forward_input, target):
        with torch.no_grad():
            return self.loss(self.model(forward_input), target)


class RemoteRHOLossDownsampling:
    def __init__(self, per_sample_loss, il_model, downsampling_ratio, device):
        self.per_sample_loss_fct = per_sample_loss
        self.downsampling_ratio = downsampling_ratio
        self.irreducible_loss_producer = IrreducibleLossProducer(per_sample_loss, il_model, device)
        self.rho_loss = torch.tensor([])
        self.number_of_points_seen = 0
        self._device = device  # <- fixed

    def init_downsampler(self):
        self.index_sampleid_map = []
        self.rho_loss = torch.tensor([]).to(self._device)  # <- fixed
        self.number_of_points_seen = 0

    def inform_samples(self, sample_ids, forward_input, forward_output, target):
        training_loss = self.per_sample_loss_fct(forward_output, target).detach()
        self.index_sampleid_map += sample_ids
        irreducible_loss = self.irreducible_loss_producer.get_irreducible_loss(forward_input, target)
        self.rho_loss = torch.cat([self.rho_loss, training_loss - irreducible_loss]).to(training_loss.dtype)  # <- fixed
        self.number_of_points_seen += forward_output.shape[0]

    def select_points(self):
        target_size = max(int(self.downsampling_ratio * self.number_of_points_seen / 100), 1)
        selected = torch.topk(self.rho_loss, target_size).indices
        return [self.index_sampleid_map[i] for i in sorted(selected.tolist())], torch.ones(target_size)


def run_trigger(model, downsampler, batches, device):
    downsampler.init_downsampler()
    model.eval()
    with torch.no_grad():
        for sample_ids, data, target in batches:
            data, target = data.to(device), target.to(device)
            output = model(data)
            downsampler.inform_samples(sample_ids, data, output, target)
    return downsampler.select_points()


if __name__ == "__main__":
    device = "cuda:0" if torch.cuda.is_available() else "cpu"
    model = nn.Linear(20, 5).to(device)
    il_model = nn.Linear(20, 5)
    downsampler = RemoteRHOLossDownsampling(nn.CrossEntropyLoss(reduction="none"), il_model, 25, device)
    batches = [(list(range(i * 8, i * 8 + 8)), torch.randn(8, 20), torch.randint(0, 5, (8,))) for i in range(4)]
    print(run_trigger(model, downsampler, batches, device))
