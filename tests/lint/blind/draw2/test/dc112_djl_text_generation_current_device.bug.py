# devcheck bug corpus: DC112
# From: https://github.com/deepjavalibrary/djl-serving/pull/800
# The model server's Hugging Face handler is told which GPU to use
# (device_id) and builds its pipeline there, but its text-generation wrapper
# moved the tokenized inputs to torch.cuda.current_device(), which is cuda:0
# in each worker: with several GPUs, a worker whose model is on cuda:1 or
# later got its inputs on another device than the model's.
# Written for devcheck's tests after the thread; not the project's code.
import os

import torch
from transformers import pipeline


class HuggingFaceService:
    def __init__(self):
        self.hf_pipeline = None
        self.device_id = -1
        self.initialized = False

    def initialize(self, properties):
        model_id = properties.get("model_id") or properties.get("model_dir")
        self.device_id = int(properties.get("device_id", "-1"))
        task = properties.get("task", "text-generation")
        kwargs = {"trust_remote_code": os.environ.get("HF_TRUST_REMOTE_CODE", "false") == "true"}
        hf_pipeline = pipeline(task=task, model=model_id, device=self.device_id, **kwargs)
        if task == "text-generation":
            hf_pipeline = self.wrap_text_generation_pipeline(hf_pipeline)
        self.hf_pipeline = hf_pipeline
        self.initialized = True

    def wrap_text_generation_pipeline(self, hf_pipeline):
        def wrapped_pipeline(inputs, *args, **kwargs):
            model = hf_pipeline.model
            tokenizer = hf_pipeline.tokenizer
            input_tokens = tokenizer(inputs, padding=True, return_tensors="pt")
            if self.device_id >= 0:
                input_tokens.to(torch.cuda.current_device())  # <- bug
            with torch.no_grad():
                output_tokens = model.generate(
                    *args,
                    input_ids=input_tokens.input_ids,
                    attention_mask=input_tokens.attention_mask,
                    **kwargs,
                )
            texts = tokenizer.batch_decode(output_tokens, skip_special_tokens=True)
            return [{"generated_text": s} for s in texts]

        return wrapped_pipeline

    def inference(self, inputs, parameters):
        return self.hf_pipeline(inputs, **parameters)
