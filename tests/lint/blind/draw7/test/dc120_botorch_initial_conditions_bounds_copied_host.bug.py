# devcheck bug corpus: DC120
# From: https://github.com/meta-pytorch/botorch/issues/872
# From: https://github.com/meta-pytorch/botorch/commit/1d35f16890c64238d6ff6124948eefbaac9602fe
# Initial conditions for acquisition optimization: the bounds are copied to
# the host once at the top (for the Sobol draw), and with linear inequality
# constraints that host copy goes on to the polytope sampler, which stacks the
# bounds' inequalities under the constraints' rows, still on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.quasirandom import SobolEngine


def bounds_to_inequalities(bounds):
    d = bounds.shape[-1]
    eye = torch.eye(d, dtype=bounds.dtype, device=bounds.device)
    A = torch.cat([-eye, eye], dim=0)
    b = torch.cat([-bounds[0], bounds[1]], dim=0).unsqueeze(-1)
    return A, b


def sparse_to_dense(d, constraints):
    _t = constraints[0][1]
    A = torch.zeros(len(constraints), d, dtype=_t.dtype, device=_t.device)
    b = torch.zeros(len(constraints), 1, dtype=_t.dtype, device=_t.device)
    for i, (indices, coefficients, rhs) in enumerate(constraints):
        A[i, indices.long()] = coefficients
        b[i] = rhs
    return A, b


def polytope_samples(n, bounds, inequality_constraints):
    A, b = sparse_to_dense(bounds.shape[-1], inequality_constraints)
    A, b = -A, -b
    A2, b2 = bounds_to_inequalities(bounds)
    A = torch.cat([A, A2], dim=0)
    b = torch.cat([b, b2], dim=0)
    # hit-and-run over {x : A x <= b}, cut short here
    x = (bounds[0] + bounds[1]) / 2
    return x.expand(n, -1).clone()


def gen_batch_initial_conditions(acq_function, bounds, q, raw_samples,
                                 inequality_constraints=None):
    device = bounds.device
    bounds = bounds.cpu()  # <- bug
    if inequality_constraints is None:
        sobol = SobolEngine(dimension=bounds.shape[-1] * q, scramble=True)
        u = sobol.draw(raw_samples).view(raw_samples, q, -1).to(bounds)
        X_rnd = bounds[0] + (bounds[1] - bounds[0]) * u
    else:
        X_rnd = polytope_samples(
            raw_samples * q,
            bounds=bounds,  # <- bug
            inequality_constraints=inequality_constraints,
        ).view(raw_samples, q, -1).cpu()
    with torch.no_grad():
        Y_rnd = acq_function(X_rnd.to(device=device)).cpu()
    best = Y_rnd.topk(4).indices
    return X_rnd[best].to(device=device)


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    bounds = torch.tensor([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]],
                          dtype=torch.double, device=device)
    constraints = [(
        torch.tensor([0, 1], device=device),
        torch.tensor([-1.0, -1.0], dtype=torch.double, device=device),
        -1.0,
    )]

    def acq(X):
        return -(X - 0.3).pow(2).sum(dim=(-1, -2))

    X0 = gen_batch_initial_conditions(acq, bounds, q=2, raw_samples=64,
                                      inequality_constraints=constraints)
    print(X0.shape, X0.device)


if __name__ == "__main__":
    main()
