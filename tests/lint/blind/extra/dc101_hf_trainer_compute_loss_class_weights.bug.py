# devcheck bug corpus: DC101
# From: https://github.com/huggingface/transformers/pull/23787
# The Trainer documentation's example of a weighted loss: a Trainer subclass
# overrides compute_loss and builds a CrossEntropyLoss whose class weights are
# made with torch.tensor and no device, on the CPU, while the model (which the
# Trainer has moved to the GPU) gives its logits on the GPU; the loss mixed
# the two. The fix makes the weights on the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn
from transformers import AutoModelForSequenceClassification, Trainer, TrainingArguments


class CustomTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        labels = inputs.get("labels")
        outputs = model(**inputs)
        logits = outputs.get("logits")
        loss_fct = nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 3.0]))  # <- bug
        loss = loss_fct(logits.view(-1, self.model.config.num_labels), labels.view(-1))
        return (loss, outputs) if return_outputs else loss


def main(train_dataset):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-cased", num_labels=3)
    args = TrainingArguments(output_dir="out", num_train_epochs=1)
    trainer = CustomTrainer(model=model, args=args, train_dataset=train_dataset)
    trainer.train()
