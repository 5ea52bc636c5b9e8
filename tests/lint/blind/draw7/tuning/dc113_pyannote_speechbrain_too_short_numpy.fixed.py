# devcheck bug corpus: DC113
# From: https://github.com/pyannote/pyannote-audio/pull/1012
# From: https://github.com/pyannote/pyannote-audio/commit/2ea4ea487049108de1ed2af84751d12e388fa661
# Fixed as the pull request does it: the too-short mask is copied to the CPU
# before NumPy, and the probing waveform is moved to the encoder's device.
# Written for devcheck's tests after the thread; not the project's code.
from functools import cached_property

import numpy as np
import torch
import torch.nn.functional as F
from speechbrain.pretrained import EncoderClassifier
from torch.nn.utils.rnn import pad_sequence


class SpeechBrainSpeakerEmbedding:
    def __init__(self, source="speechbrain/spkrec-ecapa-voxceleb", device=None):
        self.device = device
        self.classifier_ = EncoderClassifier.from_hparams(
            source=source, savedir="cache/speechbrain", run_opts={"device": device}
        )

    @cached_property
    def dimension(self):
        dummy = torch.rand(1, 16000).to(self.device)  # <- fixed
        *_, dim = self.classifier_.encode_batch(dummy).shape
        return dim

    @property
    def min_num_samples(self):
        return 640

    def __call__(self, waveforms, masks):
        batch_size, _, num_samples = waveforms.shape
        waveforms = waveforms.squeeze(dim=1)
        up = F.interpolate(masks.unsqueeze(dim=1), size=num_samples, mode="nearest").squeeze(dim=1) > 0.5
        signals = pad_sequence([w[m] for w, m in zip(waveforms, up)], batch_first=True)
        wav_lens = up.sum(dim=1)
        max_len = wav_lens.max()
        if max_len < self.min_num_samples:
            return np.nan * np.zeros((batch_size, self.dimension))

        too_short = wav_lens < self.min_num_samples
        wav_lens = wav_lens / max_len
        wav_lens[too_short] = 1.0
        embeddings = self.classifier_.encode_batch(signals, wav_lens=wav_lens).squeeze(dim=1).cpu().numpy()
        embeddings[too_short.cpu().numpy()] = np.nan  # <- fixed
        return embeddings


if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    embed = SpeechBrainSpeakerEmbedding(device=device)
    print("dimension", embed.dimension)
    waveforms = torch.randn(4, 1, 80000, device=device)
    masks = torch.rand(4, 293, device=device)
    print(embed(waveforms, masks).shape)
