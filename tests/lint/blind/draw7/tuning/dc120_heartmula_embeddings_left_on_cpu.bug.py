# devcheck bug corpus: DC120
# From: https://github.com/fspecii/HeartMuLa-Studio/issues/32
# From: https://github.com/fspecii/HeartMuLa-Studio/commit/0ba7bf5729e52f4dce121b35e9c0dca602c0a8e5
# A music-generation pipeline whose big transformer blocks are loaded onto
# the GPU lazily by a memory manager (mmgp); the model is built on the CPU
# and the small embedding layers are left there (the helper that moves them
# is never called), while the token inputs are moved to CUDA: the text
# embedding lookup fails (index on cuda:0, weight on cpu).
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch import nn


class MusicLM(nn.Module):
    def __init__(self, text_vocab=128256, audio_vocab=8197, codebooks=8, dim=2048):
        super().__init__()
        self.codebooks = codebooks
        self.text_embeddings = nn.Embedding(text_vocab, dim)
        self.audio_embeddings = nn.Embedding(audio_vocab * codebooks, dim)
        self.backbone = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, 16, batch_first=True), 4)
        self.codebook0_head = nn.Linear(dim, audio_vocab, bias=False)

    def generate_frame(self, tokens, tokens_mask):
        text_embeds = self.text_embeddings(tokens[..., -1]).unsqueeze(-2)
        audio_embeds = self.audio_embeddings(tokens[..., :-1]).view(*tokens.shape[:2], self.codebooks, -1)
        h = (torch.cat([audio_embeds, text_embeds], dim=-2) * tokens_mask.unsqueeze(-1)).sum(dim=-2)
        h = self.backbone(h)
        return self.codebook0_head(h[:, -1]).argmax(dim=-1)


class MusicPipeline:
    EMBEDDING_NAMES = ("text_embeddings", "audio_embeddings", "codebook0_head")

    def __init__(self, mula, tokenizer, memory_manager):
        self.mula = mula
        self.tokenizer = tokenizer
        self.memory_manager = memory_manager

    def _mula_device(self):
        return self.mula.text_embeddings.weight.device

    def _move_inputs(self, inputs, device):
        return {k: v.to(device) if torch.is_tensor(v) else v for k, v in inputs.items()}

    def _move_embeddings_to_device(self, device):
        for name in self.EMBEDDING_NAMES:
            module = getattr(self.mula, name)
            if next(module.parameters()).device != device:
                module.to(device)

    def _build_inputs(self, lyrics, tags):
        ids = self.tokenizer(tags + "\n" + lyrics)
        tokens = torch.zeros(1, len(ids), self.mula.codebooks + 1, dtype=torch.long)
        tokens[0, :, -1] = torch.tensor(ids)
        mask = torch.zeros_like(tokens, dtype=torch.bool)
        mask[0, :, -1] = True
        return {"tokens": tokens, "tokens_mask": mask}

    @torch.inference_mode()
    def generate(self, lyrics, tags, frames=250):
        inputs = self._build_inputs(lyrics, tags)
        self.memory_manager.ensure_model_loaded("mula")
        target_device = self._mula_device()
        if target_device.type != "cuda" and torch.cuda.is_available():
            target_device = torch.device("cuda")
        inputs = self._move_inputs(inputs, target_device)  # <- bug
        out = []
        for _ in range(frames):
            out.append(self.mula.generate_frame(inputs["tokens"], inputs["tokens_mask"]))
        return torch.stack(out, dim=-1)
