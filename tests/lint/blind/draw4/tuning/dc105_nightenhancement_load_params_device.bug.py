# devcheck bug corpus: DC105
# From: https://github.com/jinyeying/night-enhancement/pull/17
# The night-enhancement test script builds its generator and discriminators
# on args.device (which may be "cpu") and then loads the released
# "_params_XXXXXXX.pt" checkpoint with torch.load and no map_location; the
# checkpoint was saved on a GPU, so on a machine without CUDA the test fails.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os
from glob import glob

import cv2
import torch
from PIL import Image
from torchvision import transforms

from networks import Discriminator, ResnetGenerator


class ENHANCENET(object):
    def __init__(self, args):
        self.result_dir = args.result_dir
        self.dataset = args.dataset
        self.datasetpath = args.datasetpath
        self.ch = args.ch
        self.n_res = args.n_res
        self.img_size = args.img_size
        self.device = args.device

    def build_model(self):
        self.test_transform = transforms.Compose([
            transforms.Resize((self.img_size, self.img_size)),
            transforms.ToTensor(),
            transforms.Normalize(mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5)),
        ])
        self.genA2B = ResnetGenerator(input_nc=3, output_nc=3, ngf=self.ch, n_blocks=self.n_res,
                                      img_size=self.img_size).to(self.device)
        self.disGA = Discriminator(input_nc=3, ndf=self.ch, n_layers=7).to(self.device)
        self.disLA = Discriminator(input_nc=3, ndf=self.ch, n_layers=5).to(self.device)

    def load(self, dir, step):
        params = torch.load(os.path.join(dir, self.dataset + "_params_%07d.pt" % step))  # <- bug
        self.genA2B.load_state_dict(params["genA2B"])
        self.disGA.load_state_dict(params["disGA"])
        self.disLA.load_state_dict(params["disLA"])

    def test(self):
        model_dir = os.path.join(self.result_dir, self.dataset, "model")
        model_list = sorted(glob(os.path.join(model_dir, "*.pt")))
        if not model_list:
            return
        step = int(model_list[-1].split("_")[-1].split(".")[0])
        self.load(model_dir, step)
        self.genA2B.eval()
        os.makedirs("./output", exist_ok=True)
        for name in sorted(os.listdir(self.datasetpath)):
            img = Image.open(os.path.join(self.datasetpath, name)).convert("RGB")
            real_A = self.test_transform(img).unsqueeze(0).to(self.device)
            with torch.no_grad():
                fake_A2B, _, _ = self.genA2B(real_A)
            out = (fake_A2B[0].cpu().numpy().transpose(1, 2, 0) + 1) / 2
            out = cv2.resize(out[:, :, ::-1], img.size)
            cv2.imwrite(os.path.join("./output", os.path.splitext(name)[0] + ".png"), out * 255.0)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", default="delighteffects")
    parser.add_argument("--datasetpath", default="./light-effects")
    parser.add_argument("--result_dir", default="./results")
    parser.add_argument("--ch", type=int, default=64)
    parser.add_argument("--n_res", type=int, default=4)
    parser.add_argument("--img_size", type=int, default=512)
    parser.add_argument("--device", type=str, default="cuda", choices=["cpu", "cuda"])
    args = parser.parse_args()
    gan = ENHANCENET(args)
    gan.build_model()
    gan.test()
