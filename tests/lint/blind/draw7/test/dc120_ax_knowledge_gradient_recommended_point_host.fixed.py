# devcheck bug corpus: DC120
# From: https://github.com/facebook/Ax/issues/406
# From: https://github.com/facebook/Ax/commit/dac2491202b847b60139f7d34b1b5b4386b6391f
# Knowledge gradient on a GPU: the current value is the best point's value
# under a posterior-mean acquisition of the fitted model. The best-point
# recommender hands its point back as a host copy, and the KG model fed that
# copy to the acquisition function whose model sits on the GPU. Fixed by
# moving the recommended point to the model's device first.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class ToyGP(nn.Module):
    def __init__(self, train_X, train_Y):
        super().__init__()
        self.register_buffer("train_X", train_X)
        self.register_buffer("train_Y", train_Y)
        self.lengthscale = nn.Parameter(torch.tensor(0.2, dtype=train_X.dtype))

    def forward(self, X):
        dist = (X.unsqueeze(-2) - self.train_X).pow(2).sum(-1).sqrt()
        w = torch.softmax(-dist / self.lengthscale, dim=-1)
        return w @ self.train_Y


class PosteriorMean(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, X):
        return self.model(X).squeeze(-1).mean(-1)


def optimize_acqf(acq_function, bounds, raw_samples=256):
    u = torch.rand(raw_samples, 1, bounds.shape[-1],
                   dtype=bounds.dtype, device=bounds.device)
    X = bounds[0] + (bounds[1] - bounds[0]) * u
    with torch.no_grad():
        best = acq_function(X).argmax()
    return X[best]


def recommend_best_out_of_sample_point(model, bounds, device):
    acq_function = PosteriorMean(model)
    bounds_ = torch.tensor(bounds, dtype=torch.double, device=device)
    bounds_ = bounds_.transpose(-1, -2)
    candidates = optimize_acqf(acq_function, bounds_)
    rec_point = candidates.detach().cpu()
    return rec_point.view(-1)


class KnowledgeGradient:
    def __init__(self, device):
        self.device = device
        self.model = None

    def fit(self, Xs, Ys):
        self.model = ToyGP(Xs, Ys).to(self.device)

    def best_point(self, bounds):
        return recommend_best_out_of_sample_point(self.model, bounds, self.device)

    def get_current_value(self, bounds):
        best_point_acqf = PosteriorMean(self.model)
        # solution from previous iteration
        recommended_point = self.best_point(bounds)
        recommended_point = recommended_point.detach().unsqueeze(0)
        # the recommender always returns a host tensor
        recommended_point = recommended_point.to(device=self.device)  # <- fixed
        current_value = best_point_acqf(recommended_point).max()  # <- fixed
        return current_value


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    Xs = torch.rand(20, 2, dtype=torch.double)
    Ys = (Xs - 0.5).pow(2).sum(-1, keepdim=True)
    kg = KnowledgeGradient(device)
    kg.fit(Xs, Ys)
    print(kg.get_current_value([(0.0, 1.0), (0.0, 1.0)]))


if __name__ == "__main__":
    main()
