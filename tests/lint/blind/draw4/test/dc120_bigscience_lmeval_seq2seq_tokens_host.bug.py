# devcheck bug corpus: DC120
# From: https://github.com/bigscience-workshop/lm-evaluation-harness/pull/76
# The harness's seq2seq wrapper moves the T5 model to its device (cuda by
# default) but scores each request with the tokenizer's batch encodings as
# they come, on the CPU: the model's embedding gets CPU input_ids and the
# labels stay on the host (a CUDA/CPU mismatch).
# Written for devcheck's tests after the thread; not the project's code.
import math

import torch
import torch.nn.functional as F
import transformers
from tqdm import tqdm


class AutoSeq2SeqLM:
    def __init__(self, pretrained, device="cuda", batch_size=1):
        self.tokenizer = transformers.AutoTokenizer.from_pretrained(pretrained)
        self.model = transformers.AutoModelForSeq2SeqLM.from_pretrained(pretrained)
        self.model.eval()
        torch.set_grad_enabled(False)
        self._device = torch.device(device)
        self.model.to(self._device)
        self.batch_size = batch_size
        self.max_length = 2048

    @property
    def device(self):
        return self._device

    def tok_encode_batch(self, strings):
        return self.tokenizer(strings, padding=True, add_special_tokens=False, return_tensors="pt")

    def loglikelihood(self, requests):
        new_reqs = []
        for i in range(0, len(requests), self.batch_size):
            context, continuation = zip(*requests[i:i + self.batch_size])
            context = [c if c else self.tokenizer.eos_token for c in context]
            context_enc = self.tok_encode_batch(list(context))
            continuation_enc = self.tok_encode_batch(list(continuation))
            new_reqs.append(((context, continuation), context_enc, continuation_enc))
        return self._loglikelihood_tokens(new_reqs)

    def _loglikelihood_tokens(self, requests):
        res = []
        for chunk in tqdm(requests, total=math.ceil(len(requests))):
            cache_keys, inputs_tok, targets_tok = chunk
            outputs = self._model_call(inputs_tok, targets_tok)  # <- bug
            log_softmaxes = F.log_softmax(outputs.logits, dim=-1)
            for log_softmax, target_tok, target_mask in zip(
                log_softmaxes, targets_tok["input_ids"], targets_tok["attention_mask"]
            ):
                length = target_mask.sum()
                log_softmax = log_softmax[:length]
                target_tok = target_tok[:length]
                max_equal = (log_softmax.argmax(dim=-1) == target_tok).all()
                target_logits = torch.gather(log_softmax, 1, target_tok.unsqueeze(-1)).squeeze(-1)
                res.append((float(target_logits.sum()), bool(max_equal)))
        return res

    def _model_call(self, inputs_tok, targets_tok):
        return self.model(**inputs_tok, labels=targets_tok["input_ids"])


if __name__ == "__main__":
    lm = AutoSeq2SeqLM("t5-small", device="cuda")
    print(lm.loglikelihood([("translate English to German: Hello", " Hallo")]))
