# devcheck bug corpus: DC113
# From: https://github.com/BaderLab/saber/pull/143
# Saber's BERT NER model moves its model to the GPU when there is one and, in
# predict(), moves the sentences' token ids there too before running it. It
# then returned the ids as X.numpy(): on a GPU that fails, breaking
# annotation with BERT-based models. The fix copies them to the host first,
# as it already did for the logits.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from transformers import BertForTokenClassification, BertTokenizer


def get_device(model):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    n_gpus = torch.cuda.device_count()
    model.to(device)
    return device, n_gpus


def process_data_for_bert(tokenizer, sents, max_len=64):
    ids = [tokenizer.convert_tokens_to_ids(["[CLS]"] + s[: max_len - 2] + ["[SEP]"]) for s in sents]
    ids = [i + [0] * (max_len - len(i)) for i in ids]
    masks = [[float(t > 0) for t in i] for i in ids]
    return ids, None, masks


class BertForNER:
    def __init__(self, num_labels, pretrained_model_name_or_path="bert-base-cased"):
        self.device = torch.device("cpu")
        self.tokenizer = BertTokenizer.from_pretrained(pretrained_model_name_or_path)
        self.model = BertForTokenClassification.from_pretrained(pretrained_model_name_or_path,
                                                                num_labels=num_labels)
        self.device, self.n_gpus = get_device(self.model)

    def predict(self, sents, model_idx=None):
        self.model.eval()
        X, _, attention_masks = process_data_for_bert(self.tokenizer, sents)
        X = torch.tensor(X).to(device=self.device)
        attention_masks = torch.tensor(attention_masks).to(device=self.device)
        with torch.no_grad():
            logits = self.model(X, token_type_ids=None, attention_mask=attention_masks).logits
        X, y_pred = X.numpy(), logits.detach().cpu().numpy()  # <- bug
        if model_idx is not None:
            y_pred = y_pred[model_idx]
        return X, y_pred
