# devcheck bug corpus: DC120
# From: https://github.com/huggingface/optimum-intel/pull/182
# From: https://github.com/huggingface/optimum-intel/commit/feabb4714259f5d0982942c4ff57920413fe56f7
# Distillation with the INC trainer on a GPU: the Trainer moves the student
# and each batch to the GPU, but the teacher model handed in through the
# distillation config is loaded with from_pretrained and never moved, so its
# forward in compute_loss gets the CUDA batch with CPU weights.
# Written for devcheck's tests after the thread; not the project's code.
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from datasets import load_dataset
from transformers import AutoModelForSequenceClassification, AutoTokenizer, Trainer, TrainingArguments


@dataclass
class DistillationConfig:
    teacher_model: torch.nn.Module
    temperature: float = 2.0
    loss_weights: tuple = (0.5, 0.5)


class DistillationTrainer(Trainer):
    def __init__(self, *args, distillation_config=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.distillation_config = distillation_config

    def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
        outputs = model(**inputs)
        loss = outputs["loss"]
        if self.distillation_config is not None:
            self.distillation_config.teacher_model.eval()
            with torch.no_grad():
                teacher_outputs = self.distillation_config.teacher_model(**inputs)  # <- bug
            t = self.distillation_config.temperature
            kd = F.kl_div(F.log_softmax(outputs.logits / t, -1), F.softmax(teacher_outputs.logits / t, -1), reduction="batchmean")
            w_ce, w_kd = self.distillation_config.loss_weights
            loss = (w_ce * loss + w_kd * kd * t * t) / (w_ce + w_kd)
        return (loss, outputs) if return_outputs else loss


def main():
    tokenizer = AutoTokenizer.from_pretrained("distilbert-base-uncased")
    dataset = load_dataset("glue", "sst2", split="train[:512]")
    dataset = dataset.map(lambda e: tokenizer(e["sentence"], padding="max_length", truncation=True, max_length=64), batched=True)
    dataset = dataset.rename_column("label", "labels").remove_columns(["sentence", "idx"])
    student = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased", num_labels=2)
    teacher = AutoModelForSequenceClassification.from_pretrained("textattack/bert-base-uncased-SST-2", num_labels=2)  # <- bug
    trainer = DistillationTrainer(
        model=student,
        args=TrainingArguments(output_dir="distilled", per_device_train_batch_size=16, num_train_epochs=1, report_to=[]),
        train_dataset=dataset,
        distillation_config=DistillationConfig(teacher_model=teacher),
    )
    trainer.train()


if __name__ == "__main__":
    main()
