# devcheck bug corpus: DC105
# From: https://github.com/Sujit-O/pykg2vec/issues/223
# A knowledge-graph model trained with -device cuda and copied to a CPU machine
# for inference: loading its saved parameters with torch.load failed, "Attempting
# to deserialize object on a CUDA device but torch.cuda.is_available() is
# False".
# Written for devcheck's tests after the thread; not the project's code.
import torch


class Trainer:
    def __init__(self, model, config):
        self.model = model
        self.config = config
        self.device = torch.device(config.device)

    def load_model(self, model_path):
        self.model.load_state_dict(torch.load(model_path, map_location=self.device))  # <- fixed
        self.model.to(self.device)
        self.model.eval()
