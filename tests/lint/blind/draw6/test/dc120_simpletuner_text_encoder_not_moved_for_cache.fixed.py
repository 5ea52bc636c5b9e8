# devcheck bug corpus: DC120
# From: https://github.com/bghira/SimpleTuner/pull/1431
# Fixed: the helper takes force_move, and the call before the cache is
# built forces the move, so the encoders are on the accelerator's device
# whatever --offload_during_startup says.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
from accelerate import Accelerator
from transformers import CLIPTextModel, CLIPTokenizer


def move_text_encoders(args, encoders, target_device, force_move=False):  # <- fixed
    if encoders is None or (not args.offload_during_startup and not force_move):  # <- fixed
        return
    for idx, enc in enumerate(encoders):
        if enc.device == target_device:
            continue
        print(f"moving text encoder {idx + 1} to {target_device}")
        enc.to(target_device)


class EmbedCache:
    def __init__(self, accelerator, tokenizer, encoder):
        self.accelerator = accelerator
        self.tokenizer = tokenizer
        self.encoder = encoder
        self.store = {}

    @torch.no_grad()
    def compute(self, prompts):
        for prompt in prompts:
            ids = self.tokenizer(prompt, padding="max_length", max_length=77, truncation=True,
                                 return_tensors="pt").input_ids.to(self.accelerator.device)
            self.store[prompt] = self.encoder(ids)[0].cpu()
        return self.store


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pretrained_model", default="openai/clip-vit-large-patch14")
    parser.add_argument("--offload_during_startup", action="store_true")
    args = parser.parse_args()

    accelerator = Accelerator()
    tokenizer = CLIPTokenizer.from_pretrained(args.pretrained_model)
    text_encoder = CLIPTextModel.from_pretrained(args.pretrained_model)  # <- fixed
    move_text_encoders(args, [text_encoder], accelerator.device, force_move=True)  # <- fixed
    cache = EmbedCache(accelerator, tokenizer, text_encoder)
    cache.compute(["a photo of a cat", "a watercolor of a lighthouse"])


if __name__ == "__main__":
    main()
