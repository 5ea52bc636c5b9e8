# devcheck bug corpus: DC120
# From: https://github.com/EleutherAI/lm-evaluation-harness/issues/1131
# The harness's Hugging Face wrapper takes device="mps" from the user and puts
# every request's token tensor there, but only moves the loaded model onto its
# device when torch.cuda.device_count() is at least 1; on a Mac that count is
# 0, the model stays on the CPU and its embedding gets MPS tokens.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM, AutoTokenizer


class HFCausalLM:
    def __init__(self, pretrained="gpt2", device="cuda", parallelize=False):
        gpus = torch.cuda.device_count()
        allowed = {"cuda", "cpu", "mps", "mps:0"} | {f"cuda:{i}" for i in range(gpus)}
        if device in allowed:
            self._device = torch.device(device)
        else:
            self._device = torch.device("cuda" if gpus else "cpu")

        self.tokenizer = AutoTokenizer.from_pretrained(pretrained)
        self.model = AutoModelForCausalLM.from_pretrained(pretrained)
        self.model.eval()

        if isinstance(pretrained, str) and gpus >= 1:  # <- bug
            if not parallelize:
                # place the model on the requested device ourselves
                self.model.to(self._device)

    @property
    def device(self):
        return self._device

    def _model_call(self, inps):
        with torch.no_grad():
            return self.model(inps).logits

    def loglikelihood(self, requests):
        results = []
        for context, continuation in requests:
            ctx = self.tokenizer.encode(context)
            cont = self.tokenizer.encode(continuation)
            tokens = (ctx + cont)[:-1]
            inp = torch.tensor([tokens], dtype=torch.long, device=self.device)
            logprobs = F.log_softmax(self._model_call(inp), dim=-1)[0]
            tail = logprobs[-len(cont):]
            target = torch.tensor(cont, dtype=torch.long, device=self.device)
            score = tail.gather(-1, target.unsqueeze(-1)).sum()
            results.append(float(score))
        return results


if __name__ == "__main__":
    lm = HFCausalLM("gpt2", device="mps")
    print(lm.loglikelihood([("The capital of France is", " Paris")]))
