# devcheck bug corpus: DC105
# From: https://github.com/rskmoi/namedivider-python/pull/45
# namedivider's BERT name divider picks cuda or cpu, builds the BERT model
# and loads the shipped weights with torch.load and no map_location; the
# weights were saved from a GPU, so on a CPU-only machine the load fails
# before the model is ever moved.
# Written for devcheck's tests after the thread; not the project's code.
import json
from pathlib import Path
from typing import Tuple, Union

import torch
from transformers import BertForSequenceClassification, PretrainedConfig

CURRENT_DIR = Path(__file__).resolve().parent


class BERTNameDividerOnlyKatakana:
    def __init__(self, model_path: Union[str, Path], separator: str = " ", family_first: bool = False):
        self.separator = separator
        self.family_first = family_first
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        config = PretrainedConfig.from_json_file(CURRENT_DIR / "config.json")
        model = BertForSequenceClassification(config=config)
        model.load_state_dict(torch.load(model_path))  # <- bug
        self.model = model.to(self.device)
        with open(CURRENT_DIR / "vocab.json") as f:
            self.vocab_hash = json.load(f)

    def preprocess(self, undivided_name: str) -> Tuple[torch.Tensor, torch.Tensor]:
        names, masks = [], []
        for i in range(1, len(undivided_name)):
            tagged = ["[CLS]"] + list(undivided_name[:i] + "・" + undivided_name[i:]) + ["[SEP]"]
            names.append([self.vocab_hash[c] for c in tagged + ["[PAD]"] * (16 - len(tagged))])
            masks.append([1] * len(tagged) + [0] * (16 - len(tagged)))
        return (torch.tensor(names, dtype=torch.int32).to(self.device),
                torch.tensor(masks, dtype=torch.int32).to(self.device))

    def divide_name(self, undivided_name: str) -> str:
        names, masks = self.preprocess(undivided_name)
        with torch.no_grad():
            logits = self.model(input_ids=names, attention_mask=masks).logits
            max_idx = int(torch.argmax(torch.softmax(logits, dim=0)[:, 1]).cpu())
        family, given = undivided_name[max_idx + 1:], undivided_name[: max_idx + 1]
        if self.family_first:
            family, given = given, family
        return f"{family}{self.separator}{given}"


if __name__ == "__main__":
    divider = BERTNameDividerOnlyKatakana(CURRENT_DIR / "bert_katakana.pt")
    print(divider.divide_name("サトウタロウ"))
