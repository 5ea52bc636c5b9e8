# devcheck bug corpus: DC105
# From: https://github.com/CannyLab/summary_loop/pull/15
# The Summary Loop's generator and coverage scorer build their models on the
# --device given (cpu or cuda) and then reload the released GPU-trained
# weights with torch.load and no map_location: with --device cpu on a
# machine without CUDA the reload fails, and elsewhere the weights go to the
# GPU whatever device was asked for.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
from transformers import BertConfig, BertForMaskedLM, GPT2Config, GPT2LMHeadModel, GPT2TokenizerFast


class GeneTransformer:
    def __init__(self, max_output_length=25, device="cpu", starter_model=None):
        self.tokenizer = GPT2TokenizerFast.from_pretrained("gpt2")
        self.model = GPT2LMHeadModel(GPT2Config.from_pretrained("gpt2"))
        self.model.to(device)
        self.device = device
        if starter_model is not None:
            self.reload(starter_model)
        self.max_output_length = max_output_length

    def reload(self, from_file):
        print(self.model.load_state_dict(torch.load(from_file), strict=False))  # <- bug

    def score(self, bodies, summaries):
        texts = [b + " TL;DR: " + s for b, s in zip(bodies, summaries)]
        enc = self.tokenizer(texts, return_tensors="pt", padding=True).to(self.device)
        with torch.no_grad():
            out = self.model(**enc, labels=enc["input_ids"])
        return -out.loss.item()


class KeywordCoverage:
    def __init__(self, device, model_file=None):
        self.device = device
        self.model = BertForMaskedLM(BertConfig.from_pretrained("bert-base-uncased"))
        self.model.to(device)
        if model_file is not None:
            self.reload_model(model_file)

    def reload_model(self, model_file):
        print(self.model.load_state_dict(torch.load(model_file), strict=False))  # <- bug


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", type=str, default="cuda", help="cuda or cpu")
    args = parser.parse_args()
    summarizer = GeneTransformer(device=args.device, starter_model="models/gpt2_copier23.bin")
    coverage = KeywordCoverage(args.device, model_file="models/bert_coverage.bin")
    fluency = GeneTransformer(device=args.device, starter_model="models/fluency_news_bs32.bin")
    print(fluency.score(["The city council met on Monday."], ["Council met."]))
