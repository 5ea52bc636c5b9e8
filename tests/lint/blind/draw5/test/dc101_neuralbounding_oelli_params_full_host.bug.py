# devcheck bug corpus: DC101
# From: https://github.com/wenxin-liu/neural_bounding/pull/2
# The oriented-ellipsoid baseline of Neural Bounding: the sampled points are
# on the module-level device (cuda when available), but the ellipsoid's
# centre and axis lengths are made with torch.full and no device, so the
# distance in the loss mixes CPU parameters with GPU points.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.optim as optim

device = "cuda" if torch.cuda.is_available() else "cpu"


def get_training_data(dimension, n_regions=50_000):
    features = torch.rand(n_regions, dimension, device=device)
    targets = (features - 0.5).norm(dim=1) < 0.3
    return features, targets


def generate_ellipsoid_params(dimensions, centre=0.5, radius=0.3):
    centre_coords = torch.full((dimensions,), centre, dtype=torch.float32)  # <- bug
    axis_lengths = torch.full((dimensions,), radius, dtype=torch.float32)  # <- bug
    ellipsoid_params = torch.cat((centre_coords, axis_lengths))
    ellipsoid_params.requires_grad = True
    return ellipsoid_params


def distance_to_ellipsoid(points, ellipsoid_params, dim):
    center, axis_lengths = ellipsoid_params[:dim], ellipsoid_params[dim:]
    return torch.norm((points - center) / axis_lengths, dim=1) - 1


def is_inside_ellipsoid(points, params, dim):
    inside = distance_to_ellipsoid(points, params, dim) <= 1e-3
    n_inside = torch.sum(inside).item()
    return n_inside, len(inside) - n_inside


def calculate_OElli(gt_negative, gt_positive, metrics, dim):
    eigen_values, eigen_vectors = torch.linalg.eig(torch.cov(gt_positive.T))
    eigen_vectors = eigen_vectors.real
    gt_positive_t = gt_positive @ eigen_vectors
    gt_negative_t = gt_negative @ eigen_vectors
    ellipsoid_params = generate_ellipsoid_params(dimensions=dim)
    optimizer = optim.Adam([ellipsoid_params], lr=0.001)
    for i in range(30000):
        optimizer.zero_grad()
        loss = torch.sum(torch.relu(distance_to_ellipsoid(gt_positive_t, ellipsoid_params, dim)))
        loss.backward()
        optimizer.step()
        if loss == 0.0:
            break
    false_positives, true_negative = is_inside_ellipsoid(gt_negative_t, ellipsoid_params, dim)
    true_positive, false_negatives = is_inside_ellipsoid(gt_positive_t, ellipsoid_params, dim)
    metrics["OElli"] = {"false negatives": false_negatives, "false positives": false_positives,
                        "true values": true_negative + true_positive}


if __name__ == "__main__":
    features, targets = get_training_data(dimension=3)
    metrics = {}
    calculate_OElli(features[~targets], features[targets], metrics, dim=3)
    print(metrics)
