# devcheck bug corpus: DC113
# From: https://github.com/facebookresearch/demucs/pull/345
# From: https://github.com/facebookresearch/demucs/commit/1c9b9ab13f8cc04e3f3c2351bc6a4d2b532b7b64
# Fixed as the pull request and the maintainer's follow-up do it: encode_mp3
# copies the waveform to the host before converting it to NumPy.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from pathlib import Path

import lameenc
import torch
import torchaudio


def apply_model(model, mix, split=True, segment=44100 * 8, device=None):
    device = torch.device(device) if device is not None else mix.device
    model.to(device)
    if split:
        out = torch.zeros(mix.shape[0], len(model.sources), *mix.shape[1:], device=mix.device)
        for offset in range(0, mix.shape[-1], segment):
            chunk = mix[..., offset:offset + segment].to(device)
            with torch.no_grad():
                out[..., offset:offset + segment] = model(chunk).to(mix.device)
        return out
    with torch.no_grad():
        return model(mix.to(device))


def encode_mp3(wav, path, samplerate=44100, bitrate=320):
    encoder = lameenc.Encoder()
    encoder.set_bit_rate(bitrate)
    encoder.set_in_sample_rate(samplerate)
    encoder.set_channels(wav.shape[0])
    encoder.set_quality(2)
    wav = wav.data.cpu()  # <- fixed
    wav = wav.transpose(0, 1).numpy()  # <- fixed
    mp3_data = encoder.encode(wav.tobytes()) + encoder.flush()
    with open(path, "wb") as f:
        f.write(mp3_data)


def save_audio(wav, path, samplerate, bitrate=320):
    wav = (wav.clamp(-1, 1) * (2 ** 15 - 1)).short()
    if Path(path).suffix == ".mp3":
        encode_mp3(wav, path, samplerate, bitrate)
    else:
        torchaudio.save(str(path), wav.cpu(), sample_rate=samplerate)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("track")
    parser.add_argument("-d", "--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--no-split", action="store_false", dest="split")
    parser.add_argument("--mp3", action="store_true")
    args = parser.parse_args()

    model = torch.hub.load("facebookresearch/demucs", "htdemucs")
    model.eval()
    wav, sr = torchaudio.load(args.track)
    ref = wav.mean(0)
    wav = (wav - ref.mean()) / ref.std()
    sources = apply_model(model, wav[None], split=args.split, device=args.device)[0]
    sources = sources * ref.std() + ref.mean()
    ext = ".mp3" if args.mp3 else ".wav"
    for source, name in zip(sources, model.sources):
        save_audio(source, f"separated/{name}{ext}", samplerate=model.samplerate)


if __name__ == "__main__":
    main()
