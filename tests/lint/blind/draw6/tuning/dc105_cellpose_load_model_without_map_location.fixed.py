# devcheck bug corpus: DC105
# From: https://github.com/MouseLand/cellpose/pull/615
# Fixed: load_model() takes the model's device and loads the checkpoint with
# map_location=device (the CPU path keeps map_location="cpu"); callers pass
# their device instead of a cpu flag.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class CPnet(nn.Module):
    def __init__(self, nbase=(2, 32, 64), nout=3, diam_mean=30.0):
        super().__init__()
        self.nbase, self.nout = nbase, nout
        layers = []
        for cin, cout in zip(nbase[:-1], nbase[1:]):
            layers += [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU()]
        self.body = nn.Sequential(*layers)
        self.head = nn.Conv2d(nbase[-1], nout, 1)
        self.diam_mean = nn.Parameter(torch.full((1,), diam_mean), requires_grad=False)

    def forward(self, x):
        return self.head(self.body(x))

    def save_model(self, filename):
        torch.save(self.state_dict(), filename)

    def load_model(self, filename, device=None):  # <- fixed
        if (device is not None) and (device.type != "cpu"):  # <- fixed
            state_dict = torch.load(filename, map_location=device)  # <- fixed
        else:
            self.__init__(self.nbase, self.nout)
            state_dict = torch.load(filename, map_location=torch.device("cpu"))
        self.load_state_dict(dict(state_dict.items()), strict=False)


class CellposeModel:
    def __init__(self, gpu=False, device=None, pretrained_model=None):
        self.gpu = gpu
        self.device = device if device is not None else torch.device("cuda" if gpu else "cpu")
        self.net = CPnet().to(self.device)
        if pretrained_model:
            self.net.load_model(pretrained_model, device=self.device)  # <- fixed
            self.diam_mean = self.net.diam_mean.data.cpu().numpy()[0]

    @torch.no_grad()
    def eval(self, img):
        x = torch.from_numpy(img).float().to(self.device)
        return self.net(x[None]).cpu().numpy()[0]


if __name__ == "__main__":
    CPnet().save_model("cyto.pth")
    device = torch.device("cuda:1" if torch.cuda.device_count() > 1 else "cpu")
    model = CellposeModel(gpu=device.type == "cuda", device=device, pretrained_model="cyto.pth")
    print(model.diam_mean)
