# devcheck bug corpus: DC120
# From: https://github.com/QuentinFuxa/WhisperLiveKit/issues/197
# From: https://github.com/QuentinFuxa/WhisperLiveKit/commit/9c1bf379603f3f22466fde1a0818d2edda95ea6d
# Fixed as the commit does it: the session's mel-spectrogram preprocessor is
# moved to the diarization model's device right after it is built.
# Written for devcheck's tests after the thread; not the project's code.
import logging

import numpy as np
import torch
from nemo.collections.asr.models import SortformerEncLabelModel
from nemo.collections.asr.modules import AudioToMelSpectrogramPreprocessor

logger = logging.getLogger(__name__)


class SortformerDiarization:
    def __init__(self, model_name: str = "nvidia/diar_streaming_sortformer_4spk-v2"):
        self.diar_model = SortformerEncLabelModel.from_pretrained(model_name)
        self.diar_model.eval()
        if torch.cuda.is_available():
            self.diar_model.to(torch.device("cuda"))
            logger.info("Using CUDA for Sortformer model")
        self.diar_model.sortformer_modules.chunk_len = 10
        self.diar_model.sortformer_modules.subsampling_factor = 10


class SortformerDiarizationOnline:
    def __init__(self, shared_model: SortformerDiarization, sample_rate: int = 16000):
        self.sample_rate = sample_rate
        self.buffer_audio = np.array([], dtype=np.float32)
        self.diar_model = shared_model.diar_model
        self.audio2mel = AudioToMelSpectrogramPreprocessor(  # <- fixed
            window_size=0.025, normalize="NA", n_fft=512, features=128, pad_to=0
        )
        self.audio2mel.to(self.diar_model.device)  # <- fixed
        mods = self.diar_model.sortformer_modules
        self.chunk_seconds = mods.chunk_len * mods.subsampling_factor * self.diar_model.preprocessor._cfg.window_stride
        self.previous_features = None
        self.chunk_index = 0
        self.streaming_state = self.diar_model.sortformer_modules.init_streaming_state(batch_size=1, device=self.diar_model.device)
        self.total_preds = torch.zeros((1, 0, mods.n_spk), device=self.diar_model.device)

    async def diarize(self, pcm_array: np.ndarray):
        threshold = int(self.chunk_seconds * self.sample_rate)
        self.buffer_audio = np.concatenate([self.buffer_audio, pcm_array.copy()])
        if len(self.buffer_audio) < threshold:
            return
        audio, self.buffer_audio = self.buffer_audio[:threshold], self.buffer_audio[threshold:]

        signal = torch.tensor(audio).unsqueeze(0).to(self.diar_model.device)
        signal_len = torch.tensor([signal.shape[1]]).to(self.diar_model.device)
        features, _ = self.audio2mel.get_features(signal, signal_len)

        if self.previous_features is not None:
            total = torch.concat([self.previous_features[:, :, -99:], features], dim=2)
        else:
            total = features
        self.previous_features = features
        seq = torch.transpose(total, 1, 2)

        with torch.inference_mode():
            self.streaming_state, self.total_preds = self.diar_model.forward_streaming_step(
                processed_signal=seq,
                processed_signal_length=torch.tensor([seq.shape[1]]),
                streaming_state=self.streaming_state,
                total_preds=self.total_preds,
                left_offset=8 if self.chunk_index > 0 else 0,
                right_offset=8,
            )
        self.chunk_index += 1
        return self.total_preds[0].cpu().numpy()
