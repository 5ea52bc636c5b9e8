# devcheck bug corpus: DC120
# From: https://github.com/doccano/spacy-partial-tagger/pull/25
# From: https://github.com/doccano/spacy-partial-tagger/commit/da70d5222748cd8308a766ac566f15bcddfcec3e
# A spaCy/thinc tok2vec layer wraps a Hugging Face transformer in thinc's
# PyTorchWrapper, which puts it on thinc's torch device (the GPU once
# spacy.require_gpu() ran). Its forward tokenizes the docs with
# return_tensors="pt" and hands that CPU batch straight to the wrapped
# transformer: "Expected all tensors to be on the same device".
# Written for devcheck's tests after the thread; not the project's code.
from typing import Any, Tuple

import spacy
import torch
from thinc.api import Model, PyTorchWrapper_v2, torch2xp
from transformers import AutoModel, AutoTokenizer, BatchEncoding


class EncoderModule(torch.nn.Module):
    def __init__(self, transformer: torch.nn.Module) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(self, inputs: BatchEncoding) -> Tuple[torch.Tensor, torch.Tensor]:
        lengths = inputs["attention_mask"].sum(dim=-1)
        hidden = self.transformer(**inputs).last_hidden_state
        return hidden, lengths


def convert_outputs(model: Model, inputs_outputs: tuple, is_train: bool) -> tuple:
    _, (hidden, lengths) = inputs_outputs
    return model.ops.unpad(torch2xp(hidden), lengths.tolist()), lambda dY: None


def init(model: Model, X: Any = None, Y: Any = None) -> None:
    if model.layers:
        return
    name = model.attrs["model_name"]
    model.attrs["tokenizer"] = AutoTokenizer.from_pretrained(name)
    encoder = AutoModel.from_pretrained(name)
    model._layers = [PyTorchWrapper_v2(EncoderModule(encoder), convert_outputs=convert_outputs)]
    model.set_dim("nO", encoder.config.hidden_size)


def forward(model: Model, docs: Any, is_train: bool) -> tuple:
    tokenizer = model.attrs["tokenizer"]
    texts = [doc.text for doc in docs]
    batch = tokenizer(texts, return_attention_mask=True, return_tensors="pt", padding="longest", truncation=True)  # <- bug
    Y, backward = model.layers[0](batch, is_train)  # <- bug
    return Y, backward


def build_tok2vec_transformer(model_name: str) -> Model:
    return Model(
        "tok2vec_transformer",
        forward=forward,
        init=init,
        dims={"nO": None},
        attrs={"model_name": model_name},
    )


if __name__ == "__main__":
    spacy.require_gpu()
    nlp = spacy.blank("en")
    docs = [nlp("Tokyo is the capital of Japan."), nlp("Alice met Bob in Paris.")]
    tok2vec = build_tok2vec_transformer("bert-base-cased")
    tok2vec.initialize()
    vectors, _ = tok2vec(docs, is_train=False)
    print([v.shape for v in vectors])
