# devcheck bug corpus: DC112
# From: https://github.com/grammarly/gector/issues/59
# From: https://github.com/grammarly/gector/commit/48295fbb7cc25afbf099c10c8e6bc736a8e6b665
# Fixed: the confidence bias is built as torch.FloatTensor(...) and moved to
# the device of the label probabilities it is added to.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Labels(nn.Module):
    def __init__(self, vocab_size, hidden, num_labels, num_detect, incorr_index, confidence=0.0):
        super().__init__()
        self.embedder = nn.Embedding(vocab_size, hidden)
        self.num_labels_classes = num_labels
        self.num_detect_classes = num_detect
        self.incorr_index = incorr_index
        self.confidence = confidence
        self.tag_labels_projection_layer = nn.Linear(hidden, num_labels)
        self.tag_detect_projection_layer = nn.Linear(hidden, num_detect)

    def forward(self, tokens, mask):
        encoded_text = self.embedder(tokens)
        batch_size, sequence_length, _ = encoded_text.size()
        logits_labels = self.tag_labels_projection_layer(encoded_text)
        logits_d = self.tag_detect_projection_layer(encoded_text)
        class_probabilities_labels = F.softmax(logits_labels, dim=-1)
        class_probabilities_d = F.softmax(logits_d, dim=-1)
        error_probs = class_probabilities_d[:, :, self.incorr_index] * mask
        if self.confidence > 0:
            probability_change = [self.confidence] + [0] * (self.num_labels_classes - 1)
            class_probabilities_labels += torch.FloatTensor(probability_change).repeat(  # <- fixed
                (batch_size, sequence_length, 1)).to(class_probabilities_labels.device)  # <- fixed
        return {
            "class_probabilities_labels": class_probabilities_labels,
            "max_error_probability": torch.max(error_probs, dim=-1)[0],
        }


class GecModel:
    def __init__(self, model_paths, vocab_size=30000, confidence=0.2):
        self.device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
        self.models = []
        for path in model_paths:
            model = Seq2Labels(vocab_size, 768, 5002, 4, 1, confidence=confidence).to(self.device)
            model.load_state_dict(torch.load(path, map_location=torch.device("cpu")))
            model.eval()
            self.models.append(model)

    def predict(self, tokens, mask):
        tokens, mask = tokens.to(self.device), mask.to(self.device)
        with torch.no_grad():
            return [model(tokens, mask) for model in self.models]
