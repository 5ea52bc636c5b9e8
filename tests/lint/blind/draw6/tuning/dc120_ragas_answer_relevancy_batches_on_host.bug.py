# devcheck bug corpus: DC120
# From: https://github.com/vibrantlabsai/ragas/issues/60
# From: https://github.com/vibrantlabsai/ragas/pull/61
# The answer-relevancy metric scores question/answer pairs with a T5 model
# that it moves to the GPU when one is there, but the batches its
# DataLoader collates (tokenizer tensors and labels) were fed to the model
# as they came, on the CPU: T5's embedding lookup meets cpu and cuda:0.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from torch.nn import CrossEntropyLoss
from torch.nn.functional import normalize
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, T5ForConditionalGeneration


class QuestionScorer:
    def __init__(self, model_name="t5-base", device=None):
        self.tokenizer = AutoTokenizer.from_pretrained(model_name, model_max_length=512)
        self.model = T5ForConditionalGeneration.from_pretrained(model_name)
        self.model.eval()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.target_device = torch.device(device)
        self.model.to(device)
        self.prompt = "Generate a question for the given passage\n"
        self.loss_fn = CrossEntropyLoss(reduction="none")

    def collate(self, batch):
        questions, answers = zip(*batch)
        enc = self.tokenizer([self.prompt] * len(answers), list(answers), max_length=512,
                             padding=True, truncation=True, return_tensors="pt")
        labels = self.tokenizer(list(questions), max_length=512, padding=True,
                                truncation=True, return_tensors="pt").input_ids
        labels = torch.where(labels == self.tokenizer.pad_token_id, torch.tensor(-100), labels)
        return {"input_ids": enc.input_ids, "attention_mask": enc.attention_mask, "labels": labels}, labels

    def batch_scores(self, logits, labels):
        losses = self.loss_fn(logits.view(-1, logits.shape[-1]), labels.view(-1)).reshape(*labels.shape)
        return np.round([1 - normalize(l[l != 0], dim=-1).mean(dim=-1).item() for l in losses], 3)

    def predict(self, pairs, batch_size=32):
        out = []
        for inputs, labels in DataLoader(pairs, batch_size=batch_size, collate_fn=self.collate):  # <- bug
            with torch.no_grad():
                logits = self.model(**inputs, output_hidden_states=False).logits
                out.append(self.batch_scores(logits, labels))
        return np.hstack(out)


scorer = QuestionScorer()
pairs = [("What is the capital of France?", "Paris is the capital of France."),
         ("Who wrote Hamlet?", "Hamlet was written by Shakespeare.")]
print(scorer.predict(pairs, batch_size=2))
