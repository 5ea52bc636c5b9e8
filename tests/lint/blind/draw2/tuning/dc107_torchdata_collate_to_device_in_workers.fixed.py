# devcheck bug corpus: DC107
# From: https://github.com/meta-pytorch/data/issues/966
# Fixed: collate_fn returns the batch on the CPU and the training loop moves
# it to the device.
# Written for devcheck's tests after the thread; not the project's code.
from functools import partial

import torch
from torchdata.dataloader2 import DataLoader2, PrototypeMultiProcessingReadingService
from torchdata.datapipes.iter import FileLister
from torchdata.datapipes.utils.decoder import imagehandler

BATCH_SIZE = 8
NUM_WORKERS = 4
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def decode(item, image_decoder):
    key, value = item
    if key.endswith(".jpg"):
        return key, image_decoder(key, value.read())
    return key, value.read()


def collate_fn(batch):
    images = torch.stack([torch.as_tensor(sample[".jpg"]).permute(2, 0, 1) for sample in batch]).float()
    labels = torch.tensor([int(sample[".cls"]) for sample in batch])
    return images, labels  # <- fixed


def build_loader(root="data/vision/webdataset"):
    datapipe = FileLister(root, "train*.tar")
    dataset = (
        datapipe.shuffle()
        .sharding_filter()
        .open_files(mode="b")
        .load_from_tar()
        .map(partial(decode, image_decoder=imagehandler("torchrgb8")))
        .webdataset()
        .batch(BATCH_SIZE)
        .collate(collate_fn)
    )
    reading_service = PrototypeMultiProcessingReadingService(num_workers=NUM_WORKERS)
    return DataLoader2(dataset, reading_service=reading_service)


if __name__ == "__main__":
    model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.LazyLinear(10)).to(device)
    for images, labels in build_loader():
        images, labels = images.to(device), labels.to(device)  # <- fixed
        loss = torch.nn.functional.cross_entropy(model(images), labels)
        print(loss.item())
        break
