# devcheck bug corpus: DC103
# From: https://github.com/jina-ai/clip-as-service/pull/710
# Fixed: the embeddings read back from NumPy are moved to the executor's device
# before they meet the logit scale, which lives there.
# Written for devcheck's tests after the thread; not the project's code.
from typing import Dict, Optional

import torch
from clip_server.model import clip
from jina import DocumentArray, Executor, requests


class RankingEncoder(Executor):
    def __init__(self, name: str = "ViT-B/32", device: Optional[str] = None, **kwargs):
        super().__init__(**kwargs)
        self._device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self._model, self._preprocess = clip.load(name, device=self._device, jit=False)
        self._logit_scale = self._model.logit_scale.exp()

    @requests(on="/encode")
    async def encode(self, docs: DocumentArray, **kwargs):
        with torch.inference_mode():
            for d in docs:
                if d.text:
                    tokens = clip.tokenize([d.text]).to(self._device)
                    feats = self._model.encode_text(tokens)
                else:
                    pixels = self._preprocess(d.load_uri_to_image_tensor().tensor)
                    feats = self._model.encode_image(pixels.unsqueeze(0).to(self._device))
                d.embedding = feats[0].cpu().numpy()
        return docs

    @requests(on="/rank")
    async def rank(self, docs: DocumentArray, parameters: Dict, **kwargs):
        for d in docs:
            image_da = DocumentArray([x for x in [d, *d.matches] if not x.text])
            text_da = DocumentArray([x for x in [d, *d.matches] if x.text])
            image_da = await self.encode(image_da)
            text_da = await self.encode(text_da)
            img = torch.from_numpy(image_da.embeddings).to(self._device, non_blocking=True)  # <- fixed
            txt = torch.from_numpy(text_da.embeddings).to(self._device, non_blocking=True)  # <- fixed

            img = img / img.norm(dim=-1, keepdim=True)
            txt = txt / txt.norm(dim=-1, keepdim=True)
            cosine = img @ txt.t()
            if len(image_da) != 1:
                cosine = cosine.t()

            probs = (self._logit_scale * cosine).softmax(dim=-1)
            probs = probs.cpu().numpy().squeeze()
            cosine = cosine.cpu().numpy().squeeze()
            for m, p, c in zip(d.matches, probs, cosine):
                m.scores["clip_score"].value = p
                m.scores["clip_score_cosine"].value = c
            d.matches = sorted(d.matches, key=lambda m: m.scores["clip_score"].value, reverse=True)
