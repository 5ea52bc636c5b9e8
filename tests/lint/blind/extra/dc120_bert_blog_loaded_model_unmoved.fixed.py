# devcheck bug corpus: DC120
# From: https://github.com/RajKKapadia/Transformers-Text-Classification-BERT-Blog/issues/1
# Fixed: the reloaded model is moved to the device the inputs are moved to.
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
    new_model = AutoModelForSequenceClassification.from_pretrained("saved_model").to(trainer.model.device)  # <- fixed
    new_tokenizer = AutoTokenizer.from_pretrained("bert-base-uncased")
    encoding = new_tokenizer(text, return_tensors="pt", padding="max_length", truncation=True, max_length=128)
    encoding = {k: v.to(trainer.model.device) for k, v in encoding.items()}
    outputs = new_model(**encoding)  # <- fixed
    probs = torch.softmax(outputs.logits, dim=-1)
    return probs.argmax(-1).item()
