# devcheck bug corpus: DC120
# From: https://github.com/axolotl-ai-cloud/axolotl/pull/483
# Fixed: do_inference() moves the model to cfg.device before the prompt
# loop.
# Written for devcheck's tests after the thread; not the project's code.
from types import SimpleNamespace

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GenerationConfig, TextStreamer


def load_model(cfg):
    tokenizer = AutoTokenizer.from_pretrained(cfg.base_model)
    model = AutoModelForCausalLM.from_pretrained(cfg.base_model, torch_dtype=torch.float16)  # <- fixed
    return model, tokenizer


def get_multi_line_input():
    print("Give me an instruction (Ctrl + D to finish): ")
    lines = []
    try:
        while True:
            lines.append(input())
    except EOFError:
        pass
    return "\n".join(lines)


def do_inference(cfg, model, tokenizer):
    for token, symbol in {"unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>"}.items():
        tokenizer.add_special_tokens({token: symbol})
    model = model.to(cfg.device)  # <- fixed
    while True:
        instruction = get_multi_line_input()
        if not instruction:
            return
        batch = tokenizer(instruction.strip(), return_tensors="pt", add_special_tokens=True)
        model.eval()
        with torch.no_grad():
            config = GenerationConfig(repetition_penalty=1.1, max_new_tokens=1024, temperature=0.9,
                                      top_p=0.95, top_k=40, do_sample=True, use_cache=True,
                                      bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id)
            generated = model.generate(inputs=batch["input_ids"].to(cfg.device),  # <- fixed
                                       generation_config=config, streamer=TextStreamer(tokenizer))
        print(tokenizer.decode(generated[0]))


def main():
    cfg = SimpleNamespace(base_model="openlm-research/open_llama_3b",
                          device="cuda:0" if torch.cuda.is_available() else "cpu")
    model, tokenizer = load_model(cfg)
    do_inference(cfg, model, tokenizer)


if __name__ == "__main__":
    main()
