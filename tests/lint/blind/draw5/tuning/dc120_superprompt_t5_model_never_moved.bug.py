# devcheck bug corpus: DC120
# From: https://github.com/Nick088Official/SuperPrompt-v1/issues/1
# From: https://github.com/Nick088Official/SuperPrompt-v1/commit/cf7bc64c29cd0433218a2b028b3d1924d36560bb
# The prompt-upsampling notebook picks "cuda" when a GPU is there and moves
# the tokenized prompt to it, but the T5 model loaded with from_pretrained is
# never moved: generate() runs a CPU model on CUDA input ids.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from transformers import T5ForConditionalGeneration, T5Tokenizer

if torch.cuda.is_available():
    device = "cuda"
    print("Using GPU")
else:
    device = "cpu"
    print("Using CPU")

tokenizer = T5Tokenizer.from_pretrained("google/flan-t5-small")
model = T5ForConditionalGeneration.from_pretrained("roborovski/superprompt-v1", torch_dtype=torch.float16)  # <- bug
print("Loaded SuperPrompt-v1")


def upsample(prompt, max_new_tokens=512, repetition_penalty=1.2, temperature=0.5, top_p=1.0, top_k=1):
    text = "Expand the following prompt to add more detail: " + prompt
    input_ids = tokenizer(text, return_tensors="pt").input_ids.to(device)
    outputs = model.generate(  # <- bug
        input_ids,
        max_new_tokens=max_new_tokens,
        repetition_penalty=repetition_penalty,
        do_sample=True,
        temperature=temperature,
        top_p=top_p,
        top_k=top_k,
    )
    dirty = tokenizer.decode(outputs[0])
    return dirty.replace("<pad>", "").replace("</s>", "").strip()


if __name__ == "__main__":
    print(upsample("A storefront with 'Text to Image' written on it."))
