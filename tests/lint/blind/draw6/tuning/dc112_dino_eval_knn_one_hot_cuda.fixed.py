# devcheck bug corpus: DC112
# From: https://github.com/facebookresearch/dino/issues/135
# The fix builds the one-hot buffer with .to(train_features.device), so it
# follows the stored features whichever way --use_cuda put them.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


@torch.no_grad()
def extract_features(model, loader, use_cuda=True):
    features = None
    for samples, index in loader:
        samples = samples.cuda(non_blocking=True)
        index = index.cuda(non_blocking=True)
        feats = model(samples).clone()
        if features is None:
            features = torch.zeros(len(loader.dataset), feats.shape[-1])
            if use_cuda:
                features = features.cuda(non_blocking=True)
        if use_cuda:
            features.index_copy_(0, index, feats)
        else:
            features.index_copy_(0, index.cpu(), feats.cpu())
    return features


@torch.no_grad()
def knn_classifier(train_features, train_labels, test_features, test_labels, k, T, num_classes=1000):
    top1, total = 0.0, 0
    train_features = train_features.t()
    num_test, chunk = test_labels.shape[0], max(test_labels.shape[0] // 100, 1)
    retrieval_one_hot = torch.zeros(k, num_classes).to(train_features.device)  # <- fixed
    for idx in range(0, num_test, chunk):
        features = test_features[idx: idx + chunk]
        targets = test_labels[idx: idx + chunk]
        batch_size = targets.shape[0]
        similarity = torch.mm(features, train_features)
        distances, indices = similarity.topk(k, largest=True, sorted=True)
        candidates = train_labels.view(1, -1).expand(batch_size, -1)
        retrieved_neighbors = torch.gather(candidates, 1, indices)
        retrieval_one_hot.resize_(batch_size * k, num_classes).zero_()
        retrieval_one_hot.scatter_(1, retrieved_neighbors.view(-1, 1), 1)
        weights = distances.clone().div_(T).exp_()
        probs = torch.sum(retrieval_one_hot.view(batch_size, -1, num_classes) * weights.view(batch_size, -1, 1), 1)
        predictions = probs.argmax(dim=1)
        top1 += predictions.eq(targets).sum().item()
        total += batch_size
    return top1 * 100.0 / total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--use_cuda", type=lambda s: s.lower() == "true", default=True)
    parser.add_argument("--nb_knn", type=int, default=20)
    parser.add_argument("--temperature", type=float, default=0.07)
    args = parser.parse_args()
    model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, 384)).cuda()
    model.eval()
    train = TensorDataset(torch.randn(2000, 3, 32, 32), torch.arange(2000))
    test = TensorDataset(torch.randn(500, 3, 32, 32), torch.arange(500))
    train_labels = torch.randint(0, 10, (2000,))
    test_labels = torch.randint(0, 10, (500,))
    train_features = nn.functional.normalize(extract_features(model, DataLoader(train, batch_size=128), args.use_cuda), dim=1)
    test_features = nn.functional.normalize(extract_features(model, DataLoader(test, batch_size=128), args.use_cuda), dim=1)
    if args.use_cuda:
        train_labels, test_labels = train_labels.cuda(), test_labels.cuda()
    top1 = knn_classifier(train_features, train_labels, test_features, test_labels, args.nb_knn, args.temperature, num_classes=10)
    print(f"{args.nb_knn}-NN classifier result: Top1: {top1}")


if __name__ == "__main__":
    main()
