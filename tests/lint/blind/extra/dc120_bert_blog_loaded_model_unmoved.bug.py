# devcheck bug corpus: DC120
# From: https://github.com/RajKKapadia/Transformers-Text-Classification-BERT-Blog/issues/1
# A text classification notebook fine-tunes BERT with the Trainer (which puts
# the model on the GPU), saves it, and loads it again with from_pretrained
# for a `get_prediction` helper. The helper moved the tokenizer's tensors to
# the Trainer's model's device, but the reloaded model stayed on the CPU where
# from_pretrained made it: "Expected all tensors to be on the same device,
# but found at least two devices, cpu and cuda:0!". The reloaded model must
# go to the device its inputs go to.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments


def train(train_dataset, eval_dataset):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased", num_labels=3)
    args = TrainingArguments(output_dir="out", num_train_epochs=1)
    trainer = Trainer(model=model, args=args, train_dataset=train_dataset, eval_dataset=eval_dataset)
    trainer.train()
    trainer.save_model("saved_model")
    return trainer


def get_prediction(trainer, text):
    new_model = AutoModelForSequenceClassification.from_pretrained("saved_model")  # <- bug
    new_tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    encoding = new_tokenizer(text, return_tensors="pt", padding="max_length", truncation=True, max_length=128)
    encoding = {k: v.to(trainer.model.device) for k, v in encoding.items()}
    outputs = new_model(**encoding)  # <- bug
    probs = torch.softmax(outputs.logits, dim=-1)
    return probs.argmax(-1).item()
