# devcheck bug corpus: DC101
# From: https://github.com/JaidedAI/EasyOCR/issues/1378
# EasyOCR's recognition trainer: the training step moves the encoded labels,
# their lengths and the prediction lengths to the device before the CTC loss,
# but validation builds preds_size with torch.IntTensor and hands it, with the
# converter's label tensors, to the CTC loss on the GPU log-probabilities.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class CTCLabelConverter:
    def __init__(self, characters):
        self.dict = {ch: i + 1 for i, ch in enumerate(characters)}
        self.chars = ["[blank]"] + list(characters)

    def encode(self, texts, batch_max_length=25):
        length = [len(s) for s in texts]
        text = torch.IntTensor(len(texts), batch_max_length).fill_(0)
        for i, t in enumerate(texts):
            text[i, : len(t)] = torch.IntTensor([self.dict[c] for c in t])
        return text, torch.IntTensor(length)


class CRNN(nn.Module):
    def __init__(self, num_class):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 64, 3, 1, 1), nn.ReLU(), nn.MaxPool2d((4, 1)))
        self.rnn = nn.LSTM(64 * 8, 128, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(256, num_class)

    def forward(self, image, text):
        f = self.cnn(image)
        f = f.permute(0, 3, 1, 2).flatten(2)
        out, _ = self.rnn(f)
        return self.fc(out)


def validation(model, criterion, loader, converter, max_len, device):
    total = 0.0
    for image_tensors, labels in loader:
        batch_size = image_tensors.size(0)
        image = image_tensors.to(device)
        text_for_pred = torch.LongTensor(batch_size, max_len + 1).fill_(0).to(device)
        text_for_loss, length_for_loss = converter.encode(labels, batch_max_length=max_len)
        preds = model(image, text_for_pred)
        preds_size = torch.IntTensor([preds.size(1)] * batch_size)  # <- bug
        cost = criterion(preds.log_softmax(2).permute(1, 0, 2), text_for_loss, preds_size, length_for_loss)  # <- bug
        total += cost.item()
    return total


def train(train_batches, valid_loader, characters, num_iter=1000, max_len=25):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    converter = CTCLabelConverter(characters)
    model = CRNN(len(characters) + 1).to(device)
    criterion = nn.CTCLoss(zero_infinity=True).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for i, (image_tensors, labels) in enumerate(train_batches):
        image = image_tensors.to(device)
        text, length = converter.encode(labels, batch_max_length=max_len)
        preds = model(image, text).log_softmax(2)
        preds_size = torch.IntTensor([preds.size(1)] * image.size(0))
        preds = preds.permute(1, 0, 2)
        torch.backends.cudnn.enabled = False
        cost = criterion(preds, text.to(device), preds_size.to(device), length.to(device))
        torch.backends.cudnn.enabled = True
        optimizer.zero_grad()
        cost.backward()
        optimizer.step()
        if i % 100 == 0 and i != 0:
            model.eval()
            with torch.no_grad():
                print(i, validation(model, criterion, valid_loader, converter, max_len, device))
            model.train()
        if i == num_iter:
            break
