# devcheck bug corpus: DC120
# From: https://github.com/muellerzr/minimal-trainer-zoo/pull/4
# The fix (PR 4, commit 9f5cd0d) moves the tokenized sentence to
# accelerate's PartialState().device, the device the Trainer put the model
# on (and reads each predicted id with .item() for the label lookup).
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
from accelerate import PartialState
from datasets import load_dataset
from transformers import (
    AutoModelForTokenClassification,
    AutoTokenizer,
    DataCollatorForTokenClassification,
    Trainer,
    TrainingArguments,
)

model_name = "distilbert-base-uncased"
dataset = load_dataset("wnut_17")
label_list = dataset["train"].features["ner_tags"].feature.names
id2label = dict(enumerate(label_list))
label2id = {v: k for k, v in id2label.items()}
tokenizer = AutoTokenizer.from_pretrained(model_name)


def tokenize_function(examples):
    tokenized = tokenizer(examples["tokens"], truncation=True, is_split_into_words=True)
    all_labels = []
    for i, tags in enumerate(examples["ner_tags"]):
        previous, label_ids = None, []
        for word_idx in tokenized.word_ids(batch_index=i):
            if word_idx is None or word_idx == previous:
                label_ids.append(-100)
            else:
                label_ids.append(tags[word_idx])
            previous = word_idx
        all_labels.append(label_ids)
    tokenized["labels"] = all_labels
    return tokenized


tokenized_dataset = dataset.map(tokenize_function, batched=True)
model = AutoModelForTokenClassification.from_pretrained(
    model_name, num_labels=len(label_list), id2label=id2label, label2id=label2id
)
training_args = TrainingArguments(
    output_dir="results/token_classification",
    learning_rate=2e-5,
    per_device_train_batch_size=16,
    num_train_epochs=2,
    weight_decay=0.01,
)
trainer = Trainer(
    model=model,
    args=training_args,
    train_dataset=tokenized_dataset["train"],
    eval_dataset=tokenized_dataset["test"],
    data_collator=DataCollatorForTokenClassification(tokenizer=tokenizer),
)
trainer.train()

text = "The Golden State Warriors are an American professional basketball team based in San Francisco."
encoded_input = tokenizer(text, return_tensors="pt").to(PartialState().device)  # <- fixed

model.eval()
with torch.inference_mode():
    logits = model(**encoded_input).logits

predictions = logits.argmax(dim=2)
print(f"Prediction: {[id2label[pred.item()] for pred in predictions[0]]}")  # <- fixed
print(np.unique(predictions.cpu().numpy()))
