# devcheck bug corpus: DC102
# From: https://github.com/lukemelas/EfficientNet-PyTorch/issues/52
# Fixed: the moved image is assigned.
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
    img = img.to(device)  # <- fixed
    model.to(device)
    model.eval()
    with torch.no_grad():
        outputs = model(img)
    return outputs.argmax(1).item()
