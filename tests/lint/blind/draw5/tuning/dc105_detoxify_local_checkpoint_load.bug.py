# devcheck bug corpus: DC105
# From: https://github.com/unitaryai/detoxify/pull/54
# Detoxify loads its released checkpoints with
# torch.hub.load_state_dict_from_url(..., map_location=device), but a local
# checkpoint path goes through a bare torch.load; a model trained on a GPU
# and deployed with Detoxify(checkpoint=..., device="cpu") on a CPU machine
# fails to load.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import transformers

MODEL_URLS = {
    "original": "https://github.com/unitaryai/detoxify/releases/download/v0.1-alpha/toxic_original-c1212f89.ckpt",
}


def get_model_and_tokenizer(model_type, model_name, tokenizer_name, num_classes, state_dict):
    model = getattr(transformers, model_name).from_pretrained(
        pretrained_model_name_or_path=None, config=model_type, num_labels=num_classes, state_dict=state_dict)
    tokenizer = getattr(transformers, tokenizer_name).from_pretrained(model_type)
    return model, tokenizer


def load_checkpoint(model_type="original", checkpoint=None, device="cpu"):
    if checkpoint is None:
        loaded = torch.hub.load_state_dict_from_url(MODEL_URLS[model_type], map_location=device)
    else:
        loaded = torch.load(checkpoint)  # <- bug
        if "config" not in loaded or "state_dict" not in loaded:
            raise ValueError("Checkpoint needs to contain the config it was trained with and the state dict")
    class_names = loaded["config"]["dataset"]["args"]["classes"]
    model, tokenizer = get_model_and_tokenizer(**loaded["config"]["arch"]["args"],
                                               state_dict=loaded["state_dict"])
    return model, tokenizer, class_names


class Detoxify:
    def __init__(self, model_type="original", checkpoint=None, device="cpu"):
        self.model, self.tokenizer, self.class_names = load_checkpoint(
            model_type=model_type, checkpoint=checkpoint, device=device)
        self.device = device
        self.model.to(self.device)

    @torch.no_grad()
    def predict(self, text):
        self.model.eval()
        inputs = self.tokenizer(text, return_tensors="pt", truncation=True, padding=True).to(self.model.device)
        scores = torch.sigmoid(self.model(**inputs)[0]).cpu().numpy()
        return {cla: scores[:, i].tolist() for i, cla in enumerate(self.class_names)}


if __name__ == "__main__":
    print(Detoxify(checkpoint="my_finetuned_toxic.ckpt", device="cpu").predict("you are great"))
