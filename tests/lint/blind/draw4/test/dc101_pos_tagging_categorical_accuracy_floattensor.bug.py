# devcheck bug corpus: DC101
# From: https://github.com/bentrevett/pytorch-pos-tagging/pull/5
# From: https://github.com/bentrevett/pytorch-pos-tagging/commit/321c6014deb6b8e0997e736e4d76c88783fc8a9e
# The BERT PoS-tagging tutorial computes the accuracy of each batch as the number of
# correct tags (counted on the GPU) divided by torch.FloatTensor([n]), a tensor made on
# the CPU: the division mixes cuda:0 and cpu in the first training step.
# (The notebook's cells are written here as one script.)
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from transformers import BertModel

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class BERTPoSTagger(nn.Module):
    def __init__(self, bert, output_dim, dropout):
        super().__init__()
        self.bert = bert
        self.fc = nn.Linear(bert.config.hidden_size, output_dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, text):
        text = text.permute(1, 0)
        embedded = self.dropout(self.bert(text)[0]).permute(1, 0, 2)
        return self.fc(self.dropout(embedded))


def categorical_accuracy(preds, y, tag_pad_idx):
    max_preds = preds.argmax(dim=1, keepdim=True)
    non_pad_elements = (y != tag_pad_idx).nonzero()
    correct = max_preds[non_pad_elements].squeeze(1).eq(y[non_pad_elements])
    return correct.sum() / torch.FloatTensor([y[non_pad_elements].shape[0]])  # <- bug


def train(model, iterator, optimizer, criterion, tag_pad_idx):
    epoch_loss, epoch_acc = 0, 0
    model.train()
    for text, tags in iterator:
        text, tags = text.to(device), tags.to(device)
        optimizer.zero_grad()
        predictions = model(text)
        predictions = predictions.view(-1, predictions.shape[-1])
        tags = tags.view(-1)
        loss = criterion(predictions, tags)
        acc = categorical_accuracy(predictions, tags, tag_pad_idx)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        epoch_acc += acc.item()
    return epoch_loss / len(iterator), epoch_acc / len(iterator)


if __name__ == "__main__":
    bert = BertModel.from_pretrained("bert-base-uncased")
    TAG_PAD_IDX = 0
    model = BERTPoSTagger(bert, output_dim=18, dropout=0.25)
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-5)
    criterion = nn.CrossEntropyLoss(ignore_index=TAG_PAD_IDX)
    model = model.to(device)
    criterion = criterion.to(device)
    batches = [(torch.randint(100, 2000, (32, 8)), torch.randint(1, 18, (32, 8))) for _ in range(4)]
    print(train(model, batches, optimizer, criterion, TAG_PAD_IDX))
