# devcheck bug corpus: DC120
# From: https://github.com/OML-Team/open-metric-learning/issues/620
# The fix (the maintainer's answer) moves the ArcFace criterion, whose head has
# weights, to the device with the model.
# Written for devcheck's tests after the thread; not the project's code.
from torch.optim import Adam
from torch.utils.data import DataLoader
from tqdm import tqdm

from oml import datasets as d
from oml.losses import ArcFaceLoss
from oml.models import ViTExtractor
from oml.registry import get_transforms_for_pretrained
from oml.samplers import BalanceSampler
from oml.utils import get_mock_images_dataset

EPOCH = 5
device = "cuda"

model = ViTExtractor.from_pretrained("vits16_dino")
transform, _ = get_transforms_for_pretrained("vits16_dino")
df_train, _ = get_mock_images_dataset(global_paths=True)
train_dataset = d.ImageLabeledDataset(df_train, transform=transform)
labels_amount = len(set(train_dataset.get_labels()))

model = model.to(device)
optimizer = Adam(model.parameters(), lr=1e-4)
criterion = ArcFaceLoss(in_features=model.feat_dim, num_classes=labels_amount).to(device)  # <- fixed
sampler = BalanceSampler(train_dataset.get_labels(), n_labels=2, n_instances=2)


def training():
    model.train()
    for _ in range(EPOCH):
        for batch in tqdm(DataLoader(train_dataset, batch_sampler=sampler)):
            embeddings = model(batch["input_tensors"].to(device))
            loss = criterion(embeddings, batch["labels"].to(device))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(criterion.last_logs)


training()
