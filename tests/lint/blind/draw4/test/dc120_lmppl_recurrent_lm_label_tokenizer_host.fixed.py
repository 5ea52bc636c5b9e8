# devcheck bug corpus: DC120
# From: https://github.com/asahi417/lmppl/pull/12
# From: https://github.com/asahi417/lmppl/commit/c05887e9abc505e901102f2d016a69b995e9514c
# The fix (PR #12, commit c05887e) moves the tokenizer's tensors to the model's device
# once, before the model call, so the labels taken from input_ids are on the logits'
# device when the cross-entropy reads them.
# Written for devcheck's tests after the thread; not the project's code.
from typing import List

import torch
import transformers

PAD_TOKEN_LABEL_ID = torch.nn.CrossEntropyLoss().ignore_index


class LM:
    def __init__(self, model: str = "gpt2", max_length: int = None, num_gpus: int = None,
                 torch_dtype=None, device_map: str = None, attn_implementation: str = None):
        params = {}
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(model)
        if torch_dtype is not None:
            params["torch_dtype"] = torch_dtype
        if device_map is not None:
            params["device_map"] = device_map
        if attn_implementation is not None:
            params["attn_implementation"] = attn_implementation
        self.model = transformers.AutoModelForCausalLM.from_pretrained(model, **params)
        self.pad_token_initialized = False
        if self.tokenizer.pad_token is None:
            self.tokenizer.add_special_tokens({"pad_token": "<<PAD>>"})
            self.model.resize_token_embeddings(len(self.tokenizer))
            self.pad_token_initialized = True
        self.max_length = max_length
        self.loss_fct = torch.nn.CrossEntropyLoss(reduction="none")
        self.device = self.model.device
        if device_map is None:
            num_gpus = torch.cuda.device_count() if num_gpus is None else num_gpus
            if num_gpus == 1:
                self.model.to("cuda")
                self.device = self.model.device
            elif num_gpus > 1:
                self.model = torch.nn.DataParallel(self.model)
                self.model.to("cuda")
                self.device = self.model.module.device
        self.model.eval()

    def get_perplexity(self, input_texts: List[str], batch_size: int = None):
        batch_size = len(input_texts) if batch_size is None else batch_size
        bounds = list(range(0, len(input_texts), batch_size)) + [len(input_texts)]
        loss_list = []
        with torch.no_grad():
            for s, e in zip(bounds[:-1], bounds[1:]):
                model_inputs = self.tokenizer(input_texts[s:e], truncation=True, padding=True, return_tensors="pt")  # <- fixed
                if "token_type_ids" in model_inputs:
                    model_inputs.pop("token_type_ids")
                model_inputs = {k: v.to(self.device) for k, v in model_inputs.items()}  # <- fixed
                output = self.model(**{k: v.to(self.device) for k, v in model_inputs.items()})
                logit = output["logits"]
                if self.pad_token_initialized:
                    logit = logit[:, :, :-1]
                label = model_inputs["input_ids"]
                label[label == self.tokenizer.pad_token_id] = PAD_TOKEN_LABEL_ID
                shift_logits = logit[..., :-1, :].contiguous()
                shift_label = label[:, 1:].contiguous()
                valid_length = (shift_label != PAD_TOKEN_LABEL_ID).sum(dim=-1)
                loss = self.loss_fct(shift_logits.view(-1, shift_logits.size(-1)), shift_label.view(-1))  # <- fixed
                loss = loss.view(len(output["logits"]), -1)
                loss = torch.sum(loss, -1) / valid_length
                loss_list += loss.cpu().tolist()
        return [float(torch.exp(torch.tensor(l))) for l in loss_list]


if __name__ == "__main__":
    scorer = LM("gpt2", attn_implementation="flash_attention_2", torch_dtype=torch.bfloat16)
    print(scorer.get_perplexity(["sentiment classification: I dropped my laptop", "I have a laptop"]))
