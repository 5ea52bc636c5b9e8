# devcheck bug corpus: DC120
# From: https://github.com/center-for-humans-and-machines/transformer-heads/issues/12
# From: https://github.com/center-for-humans-and-machines/transformer-heads/commit/7a1b562ae931213e45907e1b3c375a4cdc8b0af6
# Fixed: both evaluation helpers move each batch's tensors to the model's
# device as they hand them to the model.
# Written for devcheck's tests after the thread; not the project's code.
from collections import defaultdict

import numpy as np
import torch
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoTokenizer, GPT2Model

from transformer_heads import load_headed
from transformer_heads.config import HeadConfig
from transformer_heads.util.helpers import DataCollatorWithPadding


@torch.inference_mode()
def evaluate_head_wise(model, ds, collator=None, batch_size=8, epochs=1):
    ds = ds.with_format(type="torch")
    loader = DataLoader(ds, batch_size=batch_size, collate_fn=collator)
    losses_by_head = defaultdict(list)
    losses = []
    for i, batch in enumerate(loader):
        outputs = model(**{key: value.to(model.device) for key, value in batch.items()})  # <- fixed
        for key in outputs.loss_by_head:
            losses_by_head[key].append(float(outputs.loss_by_head[key].item()))
        losses.append(float(outputs.loss.item()))
        if i >= len(loader) * epochs:
            break
    return float(np.mean(losses)), {k: float(np.mean(v)) for k, v in losses_by_head.items()}


@torch.inference_mode()
def get_some_preds(model, ds, tokenizer, n=5):
    ds = ds.with_format(type="torch")
    loader = DataLoader(ds, batch_size=1)
    preds, inputs = defaultdict(list), []
    for i, batch in enumerate(loader):
        if i >= n:
            break
        inputs.append(tokenizer.decode(batch["input_ids"].squeeze()))
        outputs = model(**{key: value.to(model.device) for key, value in batch.items()})  # <- fixed
        for key in outputs.preds_by_head:
            preds[key].append(int(torch.argmax(outputs.preds_by_head[key][0, -1, :])))
    return inputs, preds


def main():
    model_path = "gpt2"
    head_configs = [
        HeadConfig(name=f"imdb_head_{1 + (i - 1) * 2}", layer_hook=-(1 + (i - 1) * 2), in_size=768,
                   output_activation="linear", pred_for_sequence=True, loss_fct="cross_entropy", num_outputs=2)
        for i in range(1, 4)
    ]
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    tokenizer.pad_token = tokenizer.eos_token
    dd = load_dataset("imdb")

    def tokenize_function(examples):
        out = tokenizer(examples["text"], padding=False, truncation=True)
        for hc in head_configs:
            out[hc.name] = examples["label"]
        return out

    test = dd["test"].shuffle().select(range(200)).map(tokenize_function, batched=True)
    test = test.remove_columns(["text", "label"])
    model = load_headed(GPT2Model, model_path, head_configs=head_configs,
                        device_map={"": torch.cuda.current_device()})
    print(get_some_preds(model, test, tokenizer, n=5))
    collator = DataCollatorWithPadding(
        feature_name_to_padding_value={"input_ids": tokenizer.pad_token_id, "attention_mask": 0}
    )
    print(evaluate_head_wise(model, test, collator))


if __name__ == "__main__":
    main()
