# devcheck bug corpus: DC120
# From: https://github.com/IINemo/lm-polygraph/pull/380
# Fixed: each tokenized batch is moved to the NLI model's device
# (.to(deberta.device)) before the forward pass.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
from transformers import DebertaForSequenceClassification, DebertaTokenizer


class Deberta:
    def __init__(self, deberta_path="microsoft/deberta-large-mnli", batch_size=10, device=None):
        self.deberta_path = deberta_path
        self.batch_size = batch_size
        self.device = device if device is not None else ("cuda:0" if torch.cuda.is_available() else "cpu")
        self.deberta = DebertaForSequenceClassification.from_pretrained(
            deberta_path, problem_type="multi_label_classification")
        self.deberta_tokenizer = DebertaTokenizer.from_pretrained(deberta_path)
        self.deberta.to(self.device)
        self.deberta.eval()


class GreedySemanticMatrixCalculator:
    def __init__(self, nli_model):
        self.nli_model = nli_model

    def calculate_semantic_matrix(self, pairs, inv):
        deberta = self.nli_model
        tokenizer = deberta.deberta_tokenizer
        ent_id = deberta.deberta.config.label2id["ENTAILMENT"]
        softmax = nn.Softmax(dim=1)
        probs_f, probs_b = [], []
        with torch.no_grad():
            loader = torch.utils.data.DataLoader(pairs, batch_size=deberta.batch_size)
            for first_texts, second_texts in loader:
                encoded = tokenizer.batch_encode_plus(list(zip(first_texts, second_texts)), padding=True, return_tensors="pt").to(deberta.device)  # <- fixed
                probs_f.append(softmax(deberta.deberta(**encoded).logits))
                encoded = tokenizer.batch_encode_plus(list(zip(second_texts, first_texts)), padding=True, return_tensors="pt").to(deberta.device)  # <- fixed
                probs_b.append(softmax(deberta.deberta(**encoded).logits))
        probs_f = torch.cat(probs_f, dim=0)[:, ent_id][inv]
        probs_b = torch.cat(probs_b, dim=0)[:, ent_id][inv]
        return ((probs_f + probs_b) / 2).cpu().numpy()


samples = ["Paris is in France.", "The capital of France is Paris.", "Berlin is in Germany."]
pairs = [(a, b) for a in samples for b in samples]
inv = np.arange(len(pairs))
calc = GreedySemanticMatrixCalculator(Deberta())
print(calc.calculate_semantic_matrix(pairs, inv).reshape(3, 3))
