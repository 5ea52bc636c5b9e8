# devcheck bug corpus: DC105
# From: https://github.com/tenstorrent/tt-metal/pull/11675
# The fix (PR 11675) loads the consolidated checkpoint with
# map_location=torch.device("cpu"), where the host embedding and the weight
# conversion for the card read it.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import ttnn
from loguru import logger

from models.demos.wormhole.llama31_8b.reference.tokenizer import Tokenizer
from models.demos.wormhole.llama31_8b.tt.llama_model import TtTransformer
from models.demos.wormhole.llama31_8b.tt.model_config import TtModelArgs


class HostEmbedding(torch.nn.Module):
    def __init__(self, model_args):
        super().__init__()
        self.emb = torch.nn.Embedding(model_args.vocab_size, model_args.dim)

    def forward(self, x):
        return self.emb(x)


def run_llama_demo(device, prompts, max_new_tokens=32, instruct_mode=False):
    model_args = TtModelArgs(device, instruct=instruct_mode)
    tokenizer = Tokenizer(model_args.tokenizer_path)
    model_args.n_layers = 32

    logger.info("Loading weights...")
    state_dict = torch.load(model_args.consolidated_weights_path, map_location=torch.device("cpu"))  # <- fixed
    state_dict = {
        k: v for k, v in state_dict.items()
        if any(f"layers.{i}." in k for i in range(model_args.n_layers))
        or k in ["tok_embeddings.weight", "norm.weight", "output.weight"]
    }

    embd = HostEmbedding(model_args)
    embd.load_state_dict({"emb.weight": state_dict["tok_embeddings.weight"]})
    tt_model = TtTransformer(args=model_args, device=device, dtype=ttnn.bfloat8_b, state_dict=state_dict,
                             weight_cache_path=model_args.weight_cache_path(ttnn.bfloat8_b),
                             layers=list(range(model_args.n_layers)))

    tokens = [tokenizer.encode(p, bos=True, eos=False) for p in prompts]
    outputs = [list(t) for t in tokens]
    for _ in range(max_new_tokens):
        last = torch.tensor([[o[-1]] for o in outputs])
        logits = tt_model(embd(last), current_pos=len(outputs[0]) - 1)
        for row, tok in zip(outputs, torch.argmax(logits, dim=-1).flatten().tolist()):
            row.append(tok)
    return [tokenizer.decode(o) for o in outputs]


if __name__ == "__main__":
    device = ttnn.open_device(device_id=0)
    try:
        print(run_llama_demo(device, ["What is the capital of France?"] * 32))
    finally:
        ttnn.close_device(device)
