# devcheck bug corpus: DC120
# From: https://github.com/Unco3892/UncertaintyPlayground/pull/1
# From: https://github.com/Unco3892/UncertaintyPlayground/commit/d5402eafb90e65128207dab7e7c315ee4cb1be6e
# Fixed: the validation inputs are moved to the model's device for the
# evaluation, and the predictions come back with .cpu() before NumPy.
# Written for devcheck's tests after the thread; not the project's code.
import gpytorch
import numpy as np
import torch
from sklearn.metrics import mean_squared_error, r2_score
from sklearn.model_selection import train_test_split
from torch.utils.data import DataLoader, TensorDataset


class SVGP(gpytorch.models.ApproximateGP):
    def __init__(self, inducing_points):
        dist = gpytorch.variational.CholeskyVariationalDistribution(inducing_points.size(0))
        strategy = gpytorch.variational.VariationalStrategy(self, inducing_points, dist,
                                                            learn_inducing_locations=True)
        super().__init__(strategy)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


class SparseGPTrainer:
    def __init__(self, X, y, num_inducing_points=64, batch_size=128, epochs=20, lr=0.01, seed=1):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.epochs, self.lr = epochs, lr
        X = torch.from_numpy(X).float()
        y = torch.from_numpy(y).float()
        self.X_train, self.X_val, self.y_train, self.y_val = train_test_split(X, y, test_size=0.2, random_state=seed)
        self.loader = DataLoader(TensorDataset(self.X_train, self.y_train), batch_size=batch_size, pin_memory=True)
        self.model = SVGP(self.X_train[:num_inducing_points, :]).to(self.device)
        self.likelihood = gpytorch.likelihoods.GaussianLikelihood().to(self.device)

    def train(self):
        params = list(self.model.parameters()) + list(self.likelihood.parameters())
        optimizer = torch.optim.Adam(params, lr=self.lr)
        mll = gpytorch.mlls.VariationalELBO(self.likelihood, self.model, num_data=self.y_train.size(0))
        for epoch in range(self.epochs):
            self.model.train()
            self.likelihood.train()
            for X_batch, y_batch in self.loader:
                X_batch, y_batch = X_batch.to(self.device), y_batch.to(self.device)
                optimizer.zero_grad()
                loss = -mll(self.model(X_batch), y_batch)
                loss.backward()
                optimizer.step()
            self.model.eval()
            self.likelihood.eval()
            with torch.no_grad(), gpytorch.settings.fast_pred_var():
                y_pred_val = self.likelihood(self.model(self.X_val.to(self.device))).mean  # <- fixed
            y_true_val = self.y_val.detach().cpu().numpy()  # <- fixed
            y_pred_val = y_pred_val.detach().cpu().numpy()  # <- fixed
            mse = mean_squared_error(y_true_val, y_pred_val)  # <- fixed
            r2 = r2_score(y_true_val, y_pred_val)  # <- fixed
            print(f"epoch {epoch + 1}: val mse {mse:.4f} r2 {r2:.3f}")


rng = np.random.default_rng(0)
X = rng.normal(size=(2000, 5)).astype(np.float32)
y = (np.sin(X[:, 0]) + 0.1 * rng.normal(size=2000)).astype(np.float32)
SparseGPTrainer(X, y).train()
