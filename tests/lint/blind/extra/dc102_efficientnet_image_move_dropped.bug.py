# devcheck bug corpus: DC102
# From: https://github.com/lukemelas/EfficientNet-PyTorch/issues/52
# Inference with a pretrained EfficientNet on 'cuda:0': the script moved the
# model, and called `img.to(device)` as a statement, as if it moved the image
# in place. The moved copy was dropped and the forward pass got the CPU
# image: "Input type (torch.FloatTensor) and weight type
# (torch.cuda.FloatTensor) should be the same". The answer: `img =
# img.to(device)`.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from efficientnet_pytorch import EfficientNet
from PIL import Image
from torchvision import transforms


def classify(path):
    device = torch.device("cuda:0")
    model = EfficientNet.from_pretrained("efficientnet-b0")
    tfms = transforms.Compose(
        [
            transforms.Resize(224),
            transforms.ToTensor(),
            transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
        ]
    )
    img = tfms(Image.open(path)).unsqueeze(0)
    img.to(device)  # <- bug
    model.to(device)
    model.eval()
    with torch.no_grad():
        outputs = model(img)
    return outputs.argmax(1).item()
