# devcheck bug corpus: DC120
# From: https://github.com/lifeiteng/vall-e/issues/23
# VALL-E's inference script puts EnCodec and the model on cuda:0 when a GPU is
# there, but the prompt waveform loaded with torchaudio reaches EnCodec's
# convolutions on the CPU, the text tokens and audio prompts reach the model
# unmoved, and the synthesized samples are saved straight from the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import logging
from pathlib import Path

import torch
import torchaudio
from encodec import EncodecModel
from encodec.utils import convert_audio
from valle.data import TextTokenizer, tokenize_text
from valle.data.collation import get_text_token_collater
from valle.modules import add_model_arguments, get_model


class AudioTokenizer:
    def __init__(self):
        model = EncodecModel.encodec_model_24khz()
        model.set_target_bandwidth(6.0)
        device = torch.device("cpu")
        if torch.cuda.is_available():
            device = torch.device("cuda:0")
        self._device = device
        self.codec = model.to(device)
        self.sample_rate = model.sample_rate
        self.channels = model.channels

    @property
    def device(self):
        return self._device

    def encode(self, wav):
        return self.codec.encode(wav)  # <- bug

    def decode(self, frames):
        return self.codec.decode(frames)


def tokenize_audio(tokenizer, audio_path):
    wav, sr = torchaudio.load(audio_path)
    wav = convert_audio(wav, sr, tokenizer.sample_rate, tokenizer.channels).unsqueeze(0)
    with torch.no_grad():
        return tokenizer.encode(wav)


@torch.no_grad()
def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--text-prompts", type=str, default="")
    parser.add_argument("--audio-prompts", type=str, default="")
    parser.add_argument("--text", type=str, default="To get up and running quickly just follow the steps below.")
    parser.add_argument("--text-tokens", type=str, default="data/tokenized/unique_text_tokens.k2symbols")
    parser.add_argument("--checkpoint", type=Path, default=Path("exp/valle/epoch-10.pt"))
    parser.add_argument("--output-dir", type=Path, default=Path("infer/demo"))
    add_model_arguments(parser)
    args = parser.parse_args()

    text_tokenizer = TextTokenizer()
    text_collater = get_text_token_collater(args.text_tokens)
    audio_tokenizer = AudioTokenizer()

    device = torch.device("cpu")
    if torch.cuda.is_available():
        device = torch.device("cuda", 0)
    model = get_model(args)
    checkpoint = torch.load(args.checkpoint, map_location=device)
    model.load_state_dict(checkpoint["model"], strict=True)
    model.to(device)
    model.eval()
    args.output_dir.mkdir(parents=True, exist_ok=True)

    text_prompts, text_prompts_lens = text_collater(
        [tokenize_text(text_tokenizer, text=" ".join(args.text_prompts.split("|")))]
    )
    audio_prompts = [tokenize_audio(audio_tokenizer, f)[0][0] for f in args.audio_prompts.split("|")]
    audio_prompts = torch.concat(audio_prompts, dim=-1).transpose(2, 1)

    for n, text in enumerate(args.text.split("|")):
        logging.info(f"synthesize text: {text}")
        text_tokens, text_tokens_lens = text_collater([tokenize_text(text_tokenizer, text=text)])
        text_tokens = torch.concat([text_prompts[:, :-1], text_tokens[:, 1:]], dim=-1)
        text_tokens_lens += text_prompts_lens - 2
        encoded_frames = model.inference(text_tokens, text_tokens_lens, audio_prompts)  # <- bug
        samples = audio_tokenizer.decode([(encoded_frames.transpose(2, 1), None)])
        torchaudio.save(f"{args.output_dir}/{n}.wav", samples[0], 24000)  # <- bug


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    main()
