# devcheck bug corpus: DC113
# From: https://github.com/pykeen/pykeen/pull/276
# The evaluator tests were usually run without a GPU. On a GPU the small
# knowledge-graph model put itself on CUDA, so the scores, the mask and the
# batch it produced were on the GPU, but the scikit-learn evaluator's test
# turned them into arrays with .detach().numpy() (and built the filtering
# mask from the factory's triples still on the CPU against the batch on the
# GPU): the tests failed with device mismatches.
# Written for devcheck's tests after the thread; not the project's code.
import unittest

import torch
import torch.nn as nn
from sklearn.metrics import roc_auc_score


def resolve_device():
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


class TransE(nn.Module):
    def __init__(self, num_entities, num_relations, embedding_dim):
        super().__init__()
        self.entities = nn.Embedding(num_entities, embedding_dim)
        self.relations = nn.Embedding(num_relations, embedding_dim)
        self.device = resolve_device()
        self.to(self.device)

    def score_t(self, hr_batch):
        h = self.entities(hr_batch[:, 0])
        r = self.relations(hr_batch[:, 1])
        return -torch.cdist(h + r, self.entities.weight)


class SklearnEvaluatorTest(unittest.TestCase):
    def setUp(self):
        self.mapped_triples = torch.randint(0, 14, (200, 3))
        self.model = TransE(num_entities=14, num_relations=14, embedding_dim=7)

    def _get_input(self):
        hrt_batch = self.mapped_triples[:8].to(self.model.device)
        scores = self.model.score_t(hr_batch=hrt_batch[:, :2])
        triples = self.mapped_triples  # <- bug
        triple_mask = (triples[None, :, 0:2] == hrt_batch[:, None, 0:2]).all(dim=-1)
        batch_indices, triple_indices = triple_mask.nonzero(as_tuple=True)
        mask = torch.zeros_like(scores, dtype=torch.bool)
        mask[batch_indices, triples[triple_indices, 2]] = True
        return hrt_batch, scores, mask

    def test_finalize(self):
        hrt_batch, scores, mask = self._get_input()
        data = {"batch": hrt_batch, "scores": scores, "mask": mask}
        scores = data["scores"].detach().numpy()  # <- bug
        mask = data["mask"].detach().float().numpy()  # <- bug
        uniq = dict()
        batch = data["batch"].detach().numpy()  # <- bug
        for i, (h, r) in enumerate(batch[:, :2]):
            uniq[int(h), int(r)] = i
        indices = sorted(uniq.values())
        exp_score = roc_auc_score(mask[indices].flat, scores[indices].flat)
        self.assertGreaterEqual(exp_score, 0.0)


if __name__ == "__main__":
    unittest.main()
