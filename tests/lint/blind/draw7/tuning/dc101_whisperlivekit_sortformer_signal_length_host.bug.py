# devcheck bug corpus: DC101
# From: https://github.com/QuentinFuxa/WhisperLiveKit/issues/206
# From: https://github.com/QuentinFuxa/WhisperLiveKit/commit/4209d7f7c0f70c16f6ba5dd2146b39f7e58d8e9c
# Streaming speaker diarization with a Sortformer model on CUDA: the audio
# chunk, its length and the mel features are all on the model's device, but
# the length of the feature sequence handed to each streaming step is a new
# tensor made without a device, on the CPU; the encoder's pre-encode step
# mixes it with the CUDA features.
# Written for devcheck's tests after the thread; not the project's code.
import logging

import numpy as np
import torch
from nemo.collections.asr.models import SortformerEncLabelModel
from nemo.collections.asr.modules import AudioToMelSpectrogramPreprocessor

logger = logging.getLogger(__name__)


class StreamingState:
    spkcache = spkcache_preds = spkcache_lengths = None
    fifo = fifo_lengths = fifo_preds = spk_perm = None
    mean_sil_emb = n_sil_frames = None


class SharedSortformer:
    def __init__(self, name="nvidia/diar_streaming_sortformer_4spk-v2"):
        self.diar_model = SortformerEncLabelModel.from_pretrained(name)
        self.diar_model.eval()
        if torch.cuda.is_available():
            self.diar_model.to(torch.device("cuda"))
        self.diar_model.sortformer_modules.chunk_len = 10
        self.diar_model.sortformer_modules.subsampling_factor = 10


class OnlineDiarization:
    def __init__(self, shared, sample_rate=16000):
        self.sample_rate = sample_rate
        self.diar_model = shared.diar_model
        self.audio2mel = AudioToMelSpectrogramPreprocessor(window_size=0.025, normalize="NA", n_fft=512, features=128, pad_to=0)
        self.audio2mel.to(self.diar_model.device)
        mods = self.diar_model.sortformer_modules
        self.chunk_seconds = mods.chunk_len * mods.subsampling_factor * 0.01
        self.buffer = np.array([], dtype=np.float32)
        self.previous = None
        self.chunk_index = 0
        self.streaming_state = self._init_state(mods, self.diar_model.device)
        self.total_preds = torch.zeros((1, 0, mods.n_spk), device=self.diar_model.device)

    @staticmethod
    def _init_state(mods, device):
        state = StreamingState()
        state.spkcache = torch.zeros((1, mods.spkcache_len, mods.fc_d_model), device=device)
        state.spkcache_preds = torch.zeros((1, mods.spkcache_len, mods.n_spk), device=device)
        state.spkcache_lengths = torch.zeros((1,), dtype=torch.long, device=device)
        state.fifo = torch.zeros((1, mods.fifo_len, mods.fc_d_model), device=device)
        state.fifo_lengths = torch.zeros((1,), dtype=torch.long, device=device)
        state.mean_sil_emb = torch.zeros((1, mods.fc_d_model), device=device)
        state.n_sil_frames = torch.zeros((1,), dtype=torch.long, device=device)
        return state

    def diarize(self, pcm):
        threshold = int(self.chunk_seconds * self.sample_rate)
        self.buffer = np.concatenate([self.buffer, pcm])
        if len(self.buffer) < threshold:
            return None
        audio, self.buffer = self.buffer[:threshold], self.buffer[threshold:]

        signal = torch.tensor(audio).unsqueeze(0).to(self.diar_model.device)
        signal_length = torch.tensor([signal.shape[1]]).to(self.diar_model.device)
        features, _ = self.audio2mel.get_features(signal, signal_length)
        if self.previous is not None:
            total = torch.concat([self.previous[:, :, -99:], features], dim=2)
        else:
            total = features
        self.previous = features
        feats_t = torch.transpose(total, 1, 2)

        with torch.inference_mode():
            self.streaming_state, self.total_preds = self.diar_model.forward_streaming_step(
                processed_signal=feats_t,
                processed_signal_length=torch.tensor([feats_t.shape[1]]),  # <- bug
                streaming_state=self.streaming_state,
                total_preds=self.total_preds,
                left_offset=8 if self.chunk_index > 0 else 0,
                right_offset=8,
            )
        self.chunk_index += 1
        return self.total_preds[0].cpu().numpy().argmax(axis=1)


if __name__ == "__main__":
    diarizer = OnlineDiarization(SharedSortformer())
    for _ in range(20):
        print(diarizer.diarize(np.random.randn(16000).astype(np.float32) * 0.01))
