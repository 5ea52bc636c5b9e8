# devcheck bug corpus: DC102
# From: https://github.com/pytorch/audio/pull/3017
# The Hybrid Demucs tutorial run with CUDA: the model is moved to the GPU, but
# the song's waveform (and the reference stems) are "moved" with a bare
# waveform.to(device) whose result is dropped, so the CPU waveform reaches the
# GPU model; and the separated stems, on the GPU, then go to the CPU
# spectrogram transform and to NumPy for the SDR score without a copy back.
# Written for devcheck's tests after the thread; not the project's code.
import matplotlib.pyplot as plt
import torch
import torchaudio
from IPython.display import Audio
from mir_eval import separation
from torchaudio.pipelines import HDEMUCS_HIGH_MUSDB_PLUS
from torchaudio.transforms import Fade
from torchaudio.utils import download_asset

bundle = HDEMUCS_HIGH_MUSDB_PLUS
model = bundle.get_model()
device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model.to(device)
sample_rate = bundle.sample_rate


def separate_sources(model, mix, segment=10.0, overlap=0.1, device=None):
    device = mix.device if device is None else torch.device(device)
    batch, channels, length = mix.shape
    chunk_len = int(sample_rate * segment * (1 + overlap))
    start, end = 0, chunk_len
    overlap_frames = overlap * sample_rate
    fade = Fade(fade_in_len=0, fade_out_len=int(overlap_frames), fade_shape="linear")
    final = torch.zeros(batch, len(model.sources), channels, length, device=device)
    while start < length - overlap_frames:
        chunk = mix[:, :, start:end]
        with torch.no_grad():
            out = model.forward(chunk)
        out = fade(out)
        final[:, :, :, start:end] += out
        if start == 0:
            fade.fade_in_len = int(overlap_frames)
            start += int(chunk_len - overlap_frames)
        else:
            start += chunk_len
        end += chunk_len
        if end >= length:
            fade.fade_out_len = 0
    return final


def plot_spectrogram(stft, title="Spectrogram"):
    spectrogram = 20 * torch.log10(stft.abs() + 1e-8).numpy()
    _, axis = plt.subplots(1, 1)
    axis.imshow(spectrogram, cmap="viridis", vmin=-60, vmax=0, origin="lower", aspect="auto")
    axis.set_title(title)


waveform, sample_rate = torchaudio.load(download_asset("tutorial-assets/hdemucs_mix.wav"))
waveform.to(device)  # <- bug
mixture = waveform
ref = waveform.mean(0)
waveform = (waveform - ref.mean()) / ref.std()
sources = separate_sources(model, waveform[None], device=device, segment=10, overlap=0.1)[0]
sources = sources * ref.std() + ref.mean()
audios = dict(zip(model.sources, list(sources)))

stft = torchaudio.transforms.Spectrogram(n_fft=4096, hop_length=4, power=None)


def output_results(original_source, predicted_source, source):
    sdr = separation.bss_eval_sources(original_source.detach().numpy(), predicted_source.detach().numpy())[0]
    print("SDR score is:", sdr.mean())
    plot_spectrogram(stft(predicted_source)[0], f"Spectrogram - {source}")
    return Audio(predicted_source, rate=sample_rate)


frame_start, frame_end = 150 * sample_rate, 155 * sample_rate
drums_spec = audios["drums"][:, frame_start:frame_end]  # <- bug
drums, sample_rate = torchaudio.load(download_asset("tutorial-assets/hdemucs_drums_segment.wav"))
drums.to(device)  # <- bug
vocals_spec = audios["vocals"][:, frame_start:frame_end]  # <- bug
vocals, sample_rate = torchaudio.load(download_asset("tutorial-assets/hdemucs_vocals_segment.wav"))
vocals.to(device)  # <- bug
mix_spec = mixture[:, frame_start:frame_end]  # <- bug

plot_spectrogram(stft(mix_spec)[0], "Spectrogram - Mixture")
output_results(drums, drums_spec, "drums")
output_results(vocals, vocals_spec, "vocals")
