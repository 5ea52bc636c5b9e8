# devcheck bug corpus: DC101
# From: https://github.com/lucidrains/self-rewarding-lm-pytorch/issues/15
# From: https://github.com/lucidrains/self-rewarding-lm-pytorch/commit/ec8b9112d4ced084ae7cacfe776e1ec01fa1f950
# The fix (commit ec8b911) hands the generator the accelerator and moves both
# the model and each repeated prompt tensor to the accelerator's device before
# sampling.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor
from torch.nn import Module
from torch.utils.data import DataLoader, Dataset
from accelerate import Accelerator
from einops import repeat


class TinyLM(nn.Module):
    def __init__(self, num_tokens=256, dim=128):
        super().__init__()
        self.embed = nn.Embedding(num_tokens, dim)
        self.block = nn.TransformerEncoderLayer(dim, 4, batch_first=True)
        self.to_logits = nn.Linear(dim, num_tokens)

    def forward(self, x):
        return self.to_logits(self.block(self.embed(x)))


def sample(net, prompts, seq_len, temperature=1.0):
    net.eval()
    out = prompts.clone()
    while out.shape[-1] < seq_len:
        logits = net(out)[:, -1] / temperature
        next_token = torch.multinomial(F.softmax(logits, dim=-1), 1)
        out = torch.cat((out, next_token), dim=-1)
    return out[:, prompts.shape[-1]:]


class PromptDataset(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, idx):
        return "mock prompt"


class SFTTrainer(Module):
    def __init__(self, model, accelerator, steps=10):
        super().__init__()
        self.accelerator = accelerator
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
        self.model, self.optimizer = accelerator.prepare(model, optimizer)
        self.steps = steps

    def forward(self):
        self.model.train()
        for _ in range(self.steps):
            seq = torch.randint(0, 256, (4, 65), device=self.accelerator.device)
            logits = self.model(seq[:, :-1])
            loss = F.cross_entropy(logits.transpose(1, 2), seq[:, 1:])
            self.accelerator.backward(loss)
            self.optimizer.step()
            self.optimizer.zero_grad()


class DPODatasetGenerator(Module):
    def __init__(self, model, prompt_dataset, tokenizer_encode, accelerator, num_candidates=4, max_seq_len=48):  # <- fixed
        super().__init__()
        self.model = model
        self.accelerator = accelerator  # <- fixed
        self.prompt_dataloader = DataLoader(prompt_dataset, batch_size=2, shuffle=True)
        self.tokenizer_encode = tokenizer_encode
        self.num_candidates = num_candidates
        self.max_seq_len = max_seq_len

    @property
    def device(self):
        return self.accelerator.device

    @torch.no_grad()
    def forward(self):
        pairs = []
        model = self.model.to(self.device)  # <- fixed
        for prompts in self.prompt_dataloader:
            prompt_tensors = [self.tokenizer_encode(p) for p in prompts]
            for prompt_tensor in prompt_tensors:
                repeated = repeat(prompt_tensor, "n -> r n", r=self.num_candidates)  # <- fixed
                repeated = repeated.to(self.device)  # <- fixed
                responses = sample(model, prompts=repeated, seq_len=self.max_seq_len)  # <- fixed
                pairs.append((prompt_tensor, responses[0], responses[1]))
            if len(pairs) >= 8:
                break
        return pairs


def encode_str(seq_str: str) -> Tensor:
    return Tensor(list(map(ord, seq_str))).long()


if __name__ == "__main__":
    accelerator = Accelerator()
    transformer = TinyLM()
    SFTTrainer(transformer, accelerator)()
    generator = DPODatasetGenerator(transformer, PromptDataset(), encode_str, accelerator)  # <- fixed
    print(len(generator()))
