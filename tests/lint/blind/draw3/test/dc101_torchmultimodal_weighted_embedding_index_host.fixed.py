# devcheck bug corpus: DC101
# From: https://github.com/facebookresearch/multimodal/pull/72
# Fixed: the indices are moved to the device of the weights before the
# embedding lookup.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Callable, Tuple, Union

import torch
from torch import nn, Tensor


class WeightedEmbeddingEncoder(nn.Module):
    def __init__(
        self,
        embedding: nn.Embedding,
        pooling_function: Callable[[Tensor, int], Union[Tensor, Tuple]],
        pooling_dim: int = 1,
    ) -> None:
        super().__init__()
        self.embedding = embedding
        self.pooling_function = pooling_function
        self.pooling_dim = pooling_dim

    def forward(self, weights: Tensor) -> Tensor:
        index = torch.arange(0, weights.size(1), dtype=torch.int)  # <- fixed
        index = index.to(weights.device)  # <- fixed
        weighted_embeddings = self.embedding(index) * weights.unsqueeze(-1)
        pooled = self.pooling_function(weighted_embeddings, self.pooling_dim)
        if isinstance(pooled, Tensor):
            return pooled
        return pooled.values


class CategoricalFeatureModel(nn.Module):
    def __init__(self, num_categories, dim):
        super().__init__()
        self.encoder = WeightedEmbeddingEncoder(nn.Embedding(num_categories, dim), torch.sum)
        self.head = nn.Linear(dim, 1)

    def forward(self, weights):
        return self.head(self.encoder(weights))


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = CategoricalFeatureModel(4, 8).to(device)
    w = torch.tensor([[0.2, 0.7, 0.0, 0.1], [0.3, 0.0, 0.4, 0.3]], device=device)
    print(model(w))
