# devcheck bug corpus: DC115
# From: https://github.com/BoltzmannEntropy/xtts2-ui/issues/28
# The voice-cloning web UI picks the CPU on macOS and otherwise always
# torch.device("cuda:0"), never asking whether CUDA is there; on a Linux or
# Windows machine with a CPU-only torch, moving the XTTS model there fails
# with "Torch not compiled with CUDA enabled".
# Written for devcheck's tests after the thread; not the project's code.
import html
import platform
import uuid
from pathlib import Path

import gradio as gr
import torch
from TTS.api import TTS

MODEL_NAME = "tts_models/multilingual/multi-dataset/xtts_v2"
LANGUAGES = {"English": "en", "German": "de", "French": "fr"}


def is_mac_os():
    return platform.system() == "Darwin"


if is_mac_os():
    device = torch.device("cpu")
else:
    device = torch.device("cuda:0")  # <- bug

tts = TTS(model_name=MODEL_NAME).to(device)


def gen_voice(text, speaker, speed, language):
    text = html.unescape(text)
    out = Path("outputs") / f"{speaker}-{str(uuid.uuid4())[:8]}.wav"
    out.parent.mkdir(exist_ok=True)
    tts.tts_to_file(
        text=text,
        speed=speed,
        file_path=str(out),
        speaker_wav=[str(Path("targets") / f"{speaker}.wav")],
        language=LANGUAGES[language],
    )
    return str(out)


with gr.Blocks() as app:
    text_input = gr.Textbox(lines=2, label="Speechify this text")
    speaker = gr.Dropdown([p.stem for p in Path("targets").glob("*.wav")], label="Speaker")
    speed = gr.Slider(0.1, 1.99, value=0.8, label="Speed")
    language = gr.Dropdown(list(LANGUAGES), value="English", label="Language")
    audio_output = gr.Audio()
    gr.Button("Convert").click(gen_voice, [text_input, speaker, speed, language], audio_output)

if __name__ == "__main__":
    app.launch()
