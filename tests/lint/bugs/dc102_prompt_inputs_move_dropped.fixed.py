# devcheck bug corpus: DC102
# From: https://github.com/dhcode-cpp/X-R1/issues/9
# prompt_inputs['input_ids'].to(device) and
# prompt_inputs['attention_mask'].to(device) as statements leave the tokenized
# prompt on the CPU; the report: assign them back.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def generate_completions(model, tokenizer, prompts_text, device):
    prompt_inputs = tokenizer(prompts_text, return_tensors="pt", padding=True)
    prompt_inputs["input_ids"] = prompt_inputs["input_ids"].to(device)  # <- fixed
    prompt_inputs["attention_mask"] = prompt_inputs["attention_mask"].to(device)  # <- fixed
    with torch.no_grad():
        return model.generate(**prompt_inputs, max_new_tokens=64)
