# devcheck bug corpus: DC111
# From: https://github.com/entity-neural-network/incubator/pull/198
# RogueNet's entity embedding kept one small embedding network per entity
# type in a plain dict attribute, `self.embeddings = {}`. A plain dict's
# modules are not submodules: moving the policy to the GPU left them (and
# their parameters, missing from model.parameters()) on the CPU, while the
# forward pass made the entities' feature tensors on the device, and the
# embedding failed with a device mismatch. The PR builds the dict locally
# and stores it as an nn.ModuleDict.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, Mapping

import numpy as np
import torch
from torch import nn


class InputNorm(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.register_buffer("mean", torch.zeros(num_features))
        self.register_buffer("var", torch.ones(num_features))

    def forward(self, x):
        return (x - self.mean) / torch.sqrt(self.var + 1e-5)


class FeaturelessEmbedding(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.embedding = nn.Parameter(torch.randn(1, d_model))

    def forward(self, x):
        return self.embedding.repeat(x.size(0), 1)


class EntityEmbedding(nn.Module):
    def __init__(self, entity_features: Mapping[str, int], d_model: int) -> None:
        super().__init__()
        self.embeddings: Dict[str, nn.Module] = {}  # <- bug
        for name, n_features in entity_features.items():
            if n_features:
                self.embeddings[name] = nn.Sequential(
                    InputNorm(n_features), nn.Linear(n_features, d_model), nn.ReLU(), nn.LayerNorm(d_model)
                )
            else:
                self.embeddings[name] = FeaturelessEmbedding(d_model)

    def forward(self, entities: Mapping[str, np.ndarray], device: torch.device):
        tentities = {name: torch.tensor(feats, device=device) for name, feats in entities.items()}
        entity_embeds, entity_type = [], []
        for i, (entity, embedding) in enumerate(self.embeddings.items()):
            if entity in entities:
                emb = embedding(tentities[entity])
                entity_embeds.append(emb)
                entity_type.append(torch.full((emb.size(0), 1), float(i), device=device))
        return torch.cat(entity_embeds), torch.cat(entity_type)


class RogueNet(nn.Module):
    def __init__(self, entity_features, d_model, n_actions):
        super().__init__()
        self.embedding = EntityEmbedding(entity_features, d_model)
        self.head = nn.Linear(d_model + 1, n_actions)

    def forward(self, entities, device):
        x, entity_type = self.embedding(entities, device)
        return self.head(torch.cat([x, entity_type], dim=1))


def act(entities):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    agent = RogueNet({"Snake": 4, "Food": 2, "Wall": 0}, d_model=64, n_actions=4).to(device)
    optimizer = torch.optim.Adam(agent.parameters(), lr=3e-4)
    logits = agent(entities, device)
    return logits, optimizer
