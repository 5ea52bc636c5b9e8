# devcheck bug corpus: DC101
# From: https://github.com/voxel51/fiftyone/pull/2201
# Fixed as the pull request describes it: the prompt tokens are put on the
# model's device before encode_text, so the text features are made there
# (the tokenizing helper still fills a host tensor).
# Written for devcheck's tests after the thread; not the project's code.
import torch

from clip_model import build_model
from clip_tokenizer import SimpleTokenizer


class TorchCLIPModel:
    def __init__(self, model_path, tokenizer_path, class_labels, text_prompt="A photo of a", context_length=77):
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self._using_gpu = self.device.type == "cuda"
        self.class_labels = class_labels
        self._text_prompt = text_prompt
        self._context_length = context_length
        self._tokenizer = SimpleTokenizer(tokenizer_path)
        self._model = self._load_network(model_path)
        self._text_features = None

    def _load_network(self, model_path):
        with open(model_path, "rb") as f:
            jit_model = torch.jit.load(f, map_location=self.device).eval()
        return build_model(jit_model.state_dict()).to(self.device).float()

    def _prepare_text(self):
        texts = [f"{self._text_prompt} {label}" for label in self.class_labels]
        sot = self._tokenizer.encoder["<|startoftext|>"]
        eot = self._tokenizer.encoder["<|endoftext|>"]
        all_tokens = [[sot] + self._tokenizer.encode(t) + [eot] for t in texts]
        result = torch.zeros(len(all_tokens), self._context_length, dtype=torch.int)  # <- fixed
        for i, tokens in enumerate(all_tokens):
            if len(tokens) > self._context_length:
                tokens = tokens[: self._context_length]
                tokens[-1] = eot
            result[i, : len(tokens)] = torch.tensor(tokens)
        return result

    def _get_text_features(self):
        if self._text_features is None:
            tokens = self._prepare_text().to(self.device)  # <- fixed
            with torch.no_grad():
                self._text_features = self._model.encode_text(tokens)
        return self._text_features

    def _get_class_logits(self, text_features, image_features):
        image_features = image_features / image_features.norm(dim=1, keepdim=True)
        text_features = text_features / text_features.norm(dim=1, keepdim=True)
        logits_per_image = self._model.logit_scale.exp() * image_features @ text_features.t()
        return logits_per_image, logits_per_image.t()

    def predict_all(self, imgs):
        imgs = torch.stack(imgs)
        if self._using_gpu:
            imgs = imgs.cuda()
        with torch.no_grad():
            text_features = self._get_text_features()
            image_features = self._model.encode_image(imgs)
        logits, _ = self._get_class_logits(text_features, image_features)
        return logits.softmax(dim=-1).argmax(dim=-1).tolist()
