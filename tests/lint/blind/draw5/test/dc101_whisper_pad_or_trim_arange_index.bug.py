# devcheck bug corpus: DC101
# From: https://github.com/openai/whisper/pull/305
# Whisper's pad_or_trim cuts a waveform tensor that is longer than 30 s with
# index_select, but builds the index with torch.arange and no device; for an
# audio tensor already on the GPU, index_select gets a CPU index.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn.functional as F

SAMPLE_RATE = 16000
N_SAMPLES = 30 * SAMPLE_RATE
N_FFT, HOP_LENGTH, N_MELS = 400, 160, 80


def pad_or_trim(array, length: int = N_SAMPLES, *, axis: int = -1):
    if torch.is_tensor(array):
        if array.shape[axis] > length:
            array = array.index_select(dim=axis, index=torch.arange(length))  # <- bug
        if array.shape[axis] < length:
            pad_widths = [(0, 0)] * array.ndim
            pad_widths[axis] = (0, length - array.shape[axis])
            array = F.pad(array, [pad for sizes in pad_widths[::-1] for pad in sizes])
    else:
        if array.shape[axis] > length:
            array = array.take(indices=range(length), axis=axis)
        if array.shape[axis] < length:
            pad_widths = [(0, 0)] * array.ndim
            pad_widths[axis] = (0, length - array.shape[axis])
            array = np.pad(array, pad_widths)
    return array


def log_mel_spectrogram(audio: torch.Tensor, filters: torch.Tensor):
    window = torch.hann_window(N_FFT, device=audio.device)
    stft = torch.stft(audio, N_FFT, HOP_LENGTH, window=window, return_complex=True)
    magnitudes = stft[..., :-1].abs() ** 2
    log_spec = torch.clamp(filters @ magnitudes, min=1e-10).log10()
    log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
    return (log_spec + 4.0) / 4.0


def transcribe_features(waveform: np.ndarray, mel_filters: np.ndarray):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    audio = torch.from_numpy(waveform).float().to(device)
    filters = torch.from_numpy(mel_filters).to(device)
    audio = pad_or_trim(audio)
    return log_mel_spectrogram(audio, filters)
