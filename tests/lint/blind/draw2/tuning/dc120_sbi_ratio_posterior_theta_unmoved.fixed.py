# devcheck bug corpus: DC120
# From: https://github.com/sbi-dev/sbi/pull/492
# Fixed: log_prob moves x and theta to the posterior's device before the
# network sees them, and the potential function moves theta there (its x
# was already moved when it was made).
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, theta_dim, x_dim, hidden=50):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(theta_dim + x_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def forward(self, inputs):
        return self.net(inputs)


class RatioBasedPosterior:
    def __init__(self, net, prior, device="cpu"):
        self._device = device
        self.net = net.to(device)
        self._prior = prior

    def log_prob(self, theta, x, track_gradients=False):
        theta = torch.atleast_2d(theta)
        x = torch.atleast_2d(x)
        log_ratio = self._log_ratios_over_trials(
            x.to(self._device),  # <- fixed
            theta.to(self._device),  # <- fixed
            self.net,
            track_gradients=track_gradients,
        )
        return log_ratio.cpu() + self._prior.log_prob(theta)

    @staticmethod
    def _log_ratios_over_trials(x, theta, net, track_gradients=False):
        num_trials = x.shape[0]
        theta_rep = theta.repeat_interleave(num_trials, dim=0)
        x_rep = x.repeat(theta.shape[0], 1)
        with torch.set_grad_enabled(track_gradients):
            log_ratio = net(torch.cat((theta_rep, x_rep), dim=1))
        return log_ratio.reshape(theta.shape[0], num_trials).sum(1)


class PotentialFunctionProvider:
    def __init__(self, prior, classifier, x, device):
        self.prior = prior
        self.classifier = classifier
        self.x = x.to(device)
        self._device = device

    def __call__(self, theta):
        theta = torch.atleast_2d(theta)
        log_ratio = RatioBasedPosterior._log_ratios_over_trials(
            self.x, theta.to(self._device), self.classifier, track_gradients=False  # <- fixed
        )
        return -(log_ratio.cpu() + self.prior.log_prob(theta))


def evaluate(prior, x_o, device):
    posterior = RatioBasedPosterior(Classifier(2, 3), prior, device=device)
    theta = prior.sample((100,))
    potential = PotentialFunctionProvider(prior, posterior.net, x_o, device)
    return posterior.log_prob(theta, x_o), potential(theta[0])
