# devcheck bug corpus: DC120
# From: https://github.com/databrickslabs/dolly/pull/180
# The instruction pipeline moved the tokenizer's input_ids to the model's device
# but passed the attention_mask as the tokenizer returned it, on the host:
# generate() failed with a device mismatch on a CUDA model. The fix moved the
# mask too.
# Written for devcheck's tests after the thread; not the project's code.
import torch


class InstructionTextGenerationPipeline:
    def __init__(self, model, tokenizer):
        self.model = model
        self.tokenizer = tokenizer

    def __call__(self, prompt, max_new_tokens=256):
        inputs = self.tokenizer(prompt, return_tensors="pt")
        input_ids = inputs["input_ids"].to(self.model.device)
        attention_mask = inputs["attention_mask"]  # <- bug
        generated = self.model.generate(input_ids=input_ids, attention_mask=attention_mask, max_new_tokens=max_new_tokens)
        return self.tokenizer.decode(generated[0])


def main(model, tokenizer):
    model = model.to("cuda")
    pipe = InstructionTextGenerationPipeline(model, tokenizer)
    print(pipe("Explain device placement."))
