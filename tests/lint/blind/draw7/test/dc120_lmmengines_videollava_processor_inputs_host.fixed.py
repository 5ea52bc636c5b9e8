# devcheck bug corpus: DC120
# From: https://github.com/WildVision-AI/LMM-Engines/pull/3
# Fixed as the pull request does it: every tensor the processor returns is
# moved to the model's device before generate().
# Written for devcheck's tests after the thread; not the project's code.
import av
import numpy as np
import torch
from transformers import VideoLlavaForConditionalGeneration, VideoLlavaProcessor


def read_video_pyav(container, indices):
    frames = []
    container.seek(0)
    for i, frame in enumerate(container.decode(video=0)):
        if i > indices[-1]:
            break
        if i >= indices[0] and i in indices:
            frames.append(frame)
    return np.stack([f.to_ndarray(format="rgb24") for f in frames])


class VideoLLaVAAdapter:
    def load_model(self, model_path: str, device: str, from_pretrained_kwargs: dict):
        from_pretrained_kwargs.setdefault("torch_dtype", torch.float16)
        if not from_pretrained_kwargs.get("device_map"):
            from_pretrained_kwargs["device_map"] = "cuda"
        self.model = VideoLlavaForConditionalGeneration.from_pretrained(model_path, **from_pretrained_kwargs)
        self.processor = VideoLlavaProcessor.from_pretrained(model_path)
        return self.model

    def generate(self, params: dict) -> dict:
        video_path = params["prompt"]["video"]
        prompt = params["prompt"]["text"]
        generation_kwargs = {k: v for k, v in params.items() if k != "prompt"}

        container = av.open(video_path)
        total_frames = container.streams.video[0].frames
        indices = np.arange(0, total_frames, total_frames / 8).astype(int)
        clip = read_video_pyav(container, indices)

        final_prompt = f"USER: <video>{prompt} ASSISTANT:"
        inputs = self.processor(text=final_prompt, videos=clip, return_tensors="pt")  # <- fixed
        inputs = {k: v.to(self.model.device) for k, v in inputs.items()}  # <- fixed

        generate_ids = self.model.generate(**inputs, **generation_kwargs)
        input_len = inputs["input_ids"].shape[1]
        text = self.processor.batch_decode(
            generate_ids[:, input_len:], skip_special_tokens=True, clean_up_tokenization_spaces=False
        )[0]
        return {"text": text}


if __name__ == "__main__":
    adapter = VideoLLaVAAdapter()
    adapter.load_model("LanguageBind/Video-LLaVA-7B-hf", "cuda", {})
    out = adapter.generate({"prompt": {"text": "What happens in the video?", "video": "sample.mp4"}, "max_new_tokens": 64})
    print(out["text"])
