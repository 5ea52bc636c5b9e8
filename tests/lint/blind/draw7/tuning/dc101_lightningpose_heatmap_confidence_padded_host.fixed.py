# devcheck bug corpus: DC101
# From: https://github.com/paninski-lab/lightning-pose/pull/68
# The fix makes the padded heatmaps (and the index ranges) on the heatmaps'
# device, so the confidences are read on the GPU where the locations are.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import lightning.pytorch as pl
from kornia.geometry.subpix import spatial_expectation2d, spatial_softmax2d


def evaluate_heatmaps_at_location(heatmaps, locs, sigma=1.25, num_stds=2):
    n_pix = int(np.floor(sigma * num_stds))
    padded = torch.zeros(  # <- fixed
        (
            heatmaps.shape[0],
            heatmaps.shape[1],
            heatmaps.shape[2] + 2 * n_pix,
            heatmaps.shape[3] + 2 * n_pix,
        ),
        device=heatmaps.device,  # <- fixed
    )
    padded[:, :, n_pix:-n_pix, n_pix:-n_pix] = heatmaps
    b = torch.arange(padded.shape[0], device=padded.device).reshape(-1, 1, 1, 1)  # <- fixed
    kp = torch.arange(padded.shape[1], device=padded.device).reshape(1, -1, 1, 1)  # <- fixed
    rows = locs[:, :, None, 1, None].long() + n_pix
    cols = locs[:, :, 0, None, None].long() + n_pix
    vals = []
    for dr in range(-n_pix, n_pix + 1):
        for dc in range(-n_pix, n_pix + 1):
            vals.append(padded[b, kp, rows + dr, cols + dc].squeeze(-1).squeeze(-1))
    return torch.stack(vals, 0).sum(0)


class HeatmapTracker(pl.LightningModule):
    def __init__(self, num_keypoints=17, temperature=1000.0):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU())
        self.head = nn.Conv2d(64, num_keypoints, 1)
        self.register_buffer("temperature", torch.tensor(temperature))
        self.num_keypoints = num_keypoints

    def forward(self, images):
        return self.head(self.backbone(images))

    def run_subpixelmaxima(self, heatmaps):
        softmaxes = spatial_softmax2d(heatmaps, temperature=self.temperature)
        preds = spatial_expectation2d(softmaxes, normalized_coordinates=False)
        confidences = evaluate_heatmaps_at_location(heatmaps=softmaxes, locs=preds)
        return preds.reshape(-1, 2 * self.num_keypoints), confidences

    def training_step(self, batch, batch_idx):
        images, target_heatmaps = batch
        heatmaps = self(images)
        loss = nn.functional.mse_loss(heatmaps, target_heatmaps)
        self.log("train_loss", loss)
        return loss

    def predict_step(self, batch, batch_idx):
        images, _ = batch
        return self.run_subpixelmaxima(self(images))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


if __name__ == "__main__":
    data = torch.utils.data.TensorDataset(torch.randn(64, 3, 128, 128), torch.rand(64, 17, 64, 64))
    loader = torch.utils.data.DataLoader(data, batch_size=8)
    model = HeatmapTracker()
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=2, logger=False)
    trainer.fit(model, loader)
    predictions = trainer.predict(model, loader)
