# devcheck bug corpus: DC105
# From: https://github.com/clovaai/deep-text-recognition-benchmark/pull/263
# The scene-text recognition training script picks cuda when available and
# continues training from --saved_model. The pretrained weights it loads were
# saved from the model on a GPU, and torch.load without map_location puts
# them back on the GPU they were saved from, so continuing (or fine-tuning)
# on a CPU-only machine fails. The pull request passes map_location=device.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Model(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(opt.input_channel, 64, 3, padding=1), nn.ReLU(),
                                      nn.AdaptiveAvgPool2d((1, opt.batch_max_length)))
        self.prediction = nn.Linear(64, opt.num_class)

    def forward(self, x):
        f = self.features(x).squeeze(2).permute(0, 2, 1)
        return self.prediction(f)


def train(opt, train_loader):
    model = Model(opt)
    for name, param in model.named_parameters():
        if "weight" in name and param.dim() > 1:
            nn.init.kaiming_normal_(param)
    model = torch.nn.DataParallel(model).to(device)
    model.train()
    if opt.saved_model != "":
        print(f"loading pretrained model from {opt.saved_model}")
        if opt.FT:
            model.load_state_dict(torch.load(opt.saved_model), strict=False)  # <- bug
        else:
            model.load_state_dict(torch.load(opt.saved_model))  # <- bug
    criterion = nn.CrossEntropyLoss(ignore_index=0).to(device)
    optimizer = torch.optim.Adadelta(filter(lambda p: p.requires_grad, model.parameters()), lr=opt.lr)
    for iteration, (image_tensors, labels) in enumerate(train_loader):
        image = image_tensors.to(device)
        preds = model(image)
        cost = criterion(preds.reshape(-1, preds.shape[-1]), labels.to(device).reshape(-1))
        model.zero_grad()
        cost.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), opt.grad_clip)
        optimizer.step()
        if (iteration + 1) % opt.saveInterval == 0:
            torch.save(model.state_dict(), f"./saved_models/{opt.exp_name}/iter_{iteration + 1}.pth")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--exp_name", default="run")
    parser.add_argument("--saved_model", default="", help="path to model to continue training")
    parser.add_argument("--FT", action="store_true", help="whether to do fine-tuning")
    opt = parser.parse_args()
    os.makedirs(f"./saved_models/{opt.exp_name}", exist_ok=True)
