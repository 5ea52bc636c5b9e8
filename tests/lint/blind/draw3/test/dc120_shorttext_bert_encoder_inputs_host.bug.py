# devcheck bug corpus: DC120
# From: https://github.com/stephenhky/PyShortTextCategorization/pull/110
# The BERT sentence encoder put its model on the device it was given
# ('cuda' when available) but encoded sentences by concatenating the
# tokenizer's input ids and building the segment ids from them through
# NumPy, both on the CPU, and handed them to the model on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import warnings

import numpy as np
import torch
from transformers import BertModel, BertTokenizer


class BERTObject:
    def __init__(self, model=None, tokenizer=None, device="cpu"):
        if device == "cuda":
            if torch.cuda.is_available():
                self.device = torch.device("cuda")
            else:
                warnings.warn("CUDA is not available. Device set to 'cpu'.")
                self.device = torch.device("cpu")
        else:
            self.device = torch.device(device)
        if model is None:
            model = BertModel.from_pretrained("bert-base-uncased", output_hidden_states=True)
        self.model = model.to(self.device)
        self.tokenizer = tokenizer or BertTokenizer.from_pretrained("bert-base-uncased")
        self.number_hidden_layers = self.model.config.num_hidden_layers


class WrappedBERTEncoder(BERTObject):
    def __init__(self, model=None, tokenizer=None, max_length=48, nbencodinglayers=4, device="cpu"):
        super().__init__(model=model, tokenizer=tokenizer, device=device)
        self.max_length = max_length
        self.nbencodinglayers = nbencodinglayers

    def encode_sentences(self, sentences):
        input_ids = []
        tokenized = []
        for sentence in sentences:
            enc = self.tokenizer.encode_plus(sentence, add_special_tokens=True, truncation=True,
                                             max_length=self.max_length, padding="max_length",
                                             return_tensors="pt")
            tokenized.append(self.tokenizer.tokenize("[CLS]" + sentence + "[SEP]"))
            input_ids.append(enc["input_ids"])
        input_ids = torch.cat(input_ids, dim=0)  # <- bug
        segments_id = torch.LongTensor(np.array(input_ids > 0))  # <- bug
        with torch.no_grad():
            out = self.model(input_ids, segments_id)  # <- bug
        sentence_emb, hidden = out.pooler_output, out.hidden_states
        layers = torch.stack(hidden, dim=0).permute(1, 2, 0, 3)
        layers = layers[:, :, self.number_hidden_layers + 1 - self.nbencodinglayers:, :]
        token_emb = layers.reshape(len(sentences), self.max_length, -1)
        return sentence_emb, token_emb, tokenized


if __name__ == "__main__":
    encoder = WrappedBERTEncoder(device="cuda")
    print(encoder.encode_sentences(["short text", "another one"])[0].shape)
