# devcheck bug corpus: DC120
# From: https://github.com/facebookresearch/multimodal/issues/525
# Fixed: as the maintainer's answer says, the contrastive loss holds a
# parameter (its temperature), so the loss module is moved to the device
# with the model before it is called on the GPU embeddings.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from torch.utils.data import DataLoader
from torchvision.datasets import CocoCaptions
from torchmultimodal.models.clip.model import clip_vit_b16
from torchmultimodal.modules.losses.contrastive_loss_with_temperature import (
    ContrastiveLossWithTemperature,
)
from torchmultimodal.transforms.clip_transform import CLIPTransform

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
transform = CLIPTransform()


def collate(batch):
    images = [img for img, caps in batch]
    texts = [caps[0] for img, caps in batch]
    return transform(images, texts)


dataset = CocoCaptions(root="coco/train2017", annFile="coco/captions_train2017.json")
loader = DataLoader(dataset, batch_size=32, shuffle=True, collate_fn=collate)

model = clip_vit_b16(pretrained=True).to(device)
loss_fn = ContrastiveLossWithTemperature().to(device)  # <- fixed
optimizer = torch.optim.AdamW(
    list(model.parameters()) + list(loss_fn.parameters()), lr=1e-5, weight_decay=0.1
)

for epoch in range(3):
    model.train()
    for step, (image, text) in enumerate(loader):
        image, text = image.to(device), text.to(device)
        out = model(features_a=image, features_b=text)
        loss = loss_fn(embeddings_a=out.embeddings_a, embeddings_b=out.embeddings_b)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
