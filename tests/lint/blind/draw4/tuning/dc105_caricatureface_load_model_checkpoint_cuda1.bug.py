# devcheck bug corpus: DC105
# From: https://github.com/Juyong/CaricatureFace/issues/2
# The released ResNet-34 and MyNet checkpoints were saved on the authors'
# cuda:1; CariFace.load_model reads them with torch.load and no map_location,
# so on a machine with one GPU (Colab) loading fails with "Attempting to
# deserialize object on CUDA device 1 but torch.cuda.device_count() is 1".
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torchvision


class MyNet(nn.Module):
    def __init__(self, vertex_num, pca_pri):
        super().__init__()
        self.fc1 = nn.Linear(94, 226)
        self.fc2 = nn.Linear(226, 226)
        self.fc3 = nn.Linear(226, vertex_num * 9)
        self.fc3.weight.data = pca_pri.t()

    def forward(self, x):
        return self.fc3(self.fc2(torch.relu(self.fc1(x))))


class CariFace:
    def init_numbers(self, landmark_num=68, vertex_num=6144, device_num=0):
        self.landmark_num = landmark_num
        self.vertex_num = vertex_num
        self.device_num = device_num

    def init_data(self, data_path="data/"):
        pca = np.load(data_path + "pca_pri.npy")
        self.pca_pri = torch.from_numpy(pca).float().to(self.device_num)
        mean = np.load(data_path + "logR_S_mean.npy")
        self.logR_S_mean = torch.from_numpy(mean).float().to(self.device_num)

    def load_model(self, lr=1e-4, use_premodel=True,
                   model1_path="model/resnet34_adam.pth", model2_path="model/mynet_adam.pth"):
        self.model1 = torchvision.models.resnet34(pretrained=True)
        self.model1.fc = nn.Linear(self.model1.fc.in_features, 100)
        self.model1 = self.model1.to(self.device_num)
        self.model2 = MyNet(self.vertex_num, self.pca_pri).to(self.device_num)
        if use_premodel:
            ck1 = torch.load(model1_path)  # <- bug
            ck2 = torch.load(model2_path)  # <- bug
            self.model1.load_state_dict(ck1["net"])
            self.model2.load_state_dict(ck2["net"])
        self.optimizer1 = torch.optim.Adam(self.model1.parameters(), lr=lr)
        self.optimizer2 = torch.optim.Adam(self.model2.parameters(), lr=lr * 0.1)
        self.loss_fn = nn.MSELoss().to(self.device_num)

    def predict(self, img):
        self.model1.eval()
        self.model2.eval()
        with torch.no_grad():
            output = self.model1(img.to(self.device_num).float())
            delta = self.model2(output[:, 0:94])
            return (delta + self.logR_S_mean).reshape(-1, 9)


if __name__ == "__main__":
    model = CariFace()
    model.init_numbers(device_num=0)
    model.init_data("data/")
    model.load_model(use_premodel=True)
    print(model.predict(torch.rand(1, 3, 224, 224)).shape)
