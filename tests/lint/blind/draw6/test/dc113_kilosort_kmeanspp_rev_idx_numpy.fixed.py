# devcheck bug corpus: DC113
# From: https://github.com/MouseLand/Kilosort/issues/956
# From: https://github.com/MouseLand/Kilosort/commit/68592a52fc86bc849a728d77c5806a5e33d1e19f
# The fix (commit 68592a5) turns the reverse mapping into a tensor on the
# clustering device, rev_idx = torch.from_numpy(rev_idx).to(device), so the
# sampled indices select from it without a trip through NumPy.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch


def subsample_idx(n1, n2):
    remove = np.round(np.linspace(0, n1 - 1, n2)).astype(int)
    idx = np.ones(n1, dtype=bool)
    idx[remove] = False
    rev_idx = idx.nonzero()[0]
    return idx, rev_idx


def kmeans_plusplus(Xg, niter=200, seed=1, device=torch.device("cuda")):
    vtot = (Xg ** 2).sum(1)
    n1 = vtot.shape[0]
    if n1 > 2 ** 24:
        # torch.multinomial takes at most 2**24 categories: sample candidates
        # from an evenly spread subset and map them back to spike indices.
        idx, rev_idx = subsample_idx(n1, n1 - 2 ** 24)
        rev_idx = torch.from_numpy(rev_idx).to(device)  # <- fixed
        subsample = True
    else:
        subsample = False

    torch.manual_seed(seed)
    np.random.seed(seed)
    ntry = 100
    n_spikes, n_features = Xg.shape
    mu = torch.zeros((niter, n_features), device=device)
    vexp0 = torch.zeros(n_spikes, device=device)
    iclust = torch.zeros((n_spikes,), dtype=torch.int, device=device)

    for j in range(niter):
        v2 = torch.relu(vtot - vexp0)
        if subsample:
            isamp = rev_idx[torch.multinomial(v2[idx], ntry)]  # <- fixed
        else:
            isamp = torch.multinomial(v2, ntry)
        Xc = Xg[isamp]
        vexp = 2 * Xg @ Xc.T - (Xc ** 2).sum(1)
        dexp = torch.relu(vexp - vexp0.unsqueeze(1))
        imax = torch.argmax(dexp.sum(0))
        ix = dexp[:, imax] > 0
        iclust[ix] = j
        mu[j] = Xc[imax]
        vexp0[ix] = vexp[ix, imax]
    return iclust, mu


if __name__ == "__main__":
    device = torch.device("cuda")
    features = torch.randn(2 ** 24 + 1000, 6, device=device)
    labels, centroids = kmeans_plusplus(features, niter=50, device=device)
