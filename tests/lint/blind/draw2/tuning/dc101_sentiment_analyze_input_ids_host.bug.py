# devcheck bug corpus: DC101
# From: https://github.com/barissayil/SentimentAnalysis/issues/31
# The interactive sentiment script had its device lines commented out; a user
# who enabled them (the model moved to cuda:0 when available) got "Expected
# all tensors to be on the same device ... cuda:0 and cpu" from the
# embedding lookup: the sentence's token ids were made with torch.tensor and
# no device and given to the model as they were. The author's new version
# puts the ids on the device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn
from transformers import AutoConfig, AutoTokenizer, BertModel, BertPreTrainedModel


class BertForSentimentClassification(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.bert = BertModel(config)
        self.cls_layer = nn.Linear(config.hidden_size, 1)

    def forward(self, input_ids, attention_mask):
        reps, _ = self.bert(input_ids=input_ids, attention_mask=attention_mask, return_dict=False)
        return self.cls_layer(reps[:, 0])


def classify_sentiment(sentence):
    with torch.no_grad():
        tokens = ["[CLS]"] + tokenizer.tokenize(sentence) + ["[SEP]"]
        input_ids = tokenizer.convert_tokens_to_ids(tokens)
        input_ids = torch.tensor(input_ids)  # <- bug
        input_ids = input_ids.unsqueeze(0)
        attention_mask = (input_ids != 0).long()
        logit = model(input_ids=input_ids, attention_mask=attention_mask)
        prob = torch.sigmoid(logit.unsqueeze(-1)).item()
        if prob > 0.5:
            print("Positive with probability {}%.".format(int(prob * 100)))
        else:
            print("Negative with probability {}%.".format(int(100 - prob * 100)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--model_name_or_path", default="barissayil/bert-sentiment-analysis-sst")
    args = parser.parse_args()
    config = AutoConfig.from_pretrained(args.model_name_or_path)
    model = BertForSentimentClassification.from_pretrained(args.model_name_or_path)
    device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
    model = model.to(device)
    model.eval()
    tokenizer = AutoTokenizer.from_pretrained(args.model_name_or_path)
    sentence = input("Input sentiment to analyze: ")
    while sentence:
        classify_sentiment(sentence)
        sentence = input("Input sentiment to analyze: ")
