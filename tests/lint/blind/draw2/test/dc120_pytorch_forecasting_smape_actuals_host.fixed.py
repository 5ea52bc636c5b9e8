# devcheck bug corpus: DC120
# From: https://github.com/sktime/pytorch-forecasting/issues/1352
# Fixed: the actuals are moved to the device the predictions are on
# (device = cuda if available, actuals = torch.cat(...).to(device)).
# Written for devcheck's tests after the thread; not the project's code.
import lightning.pytorch as pl
import torch
from pytorch_forecasting import TemporalFusionTransformer, TimeSeriesDataSet
from pytorch_forecasting.metrics import SMAPE, QuantileLoss


def evaluate(training: TimeSeriesDataSet, validation: TimeSeriesDataSet, batch_size=128):
    train_dataloader = training.to_dataloader(train=True, batch_size=batch_size, num_workers=0)
    val_dataloader = validation.to_dataloader(train=False, batch_size=batch_size * 10, num_workers=0)

    trainer = pl.Trainer(max_epochs=30, accelerator="gpu", gradient_clip_val=0.1)
    tft = TemporalFusionTransformer.from_dataset(training, learning_rate=0.03, hidden_size=16, loss=QuantileLoss())
    trainer.fit(tft, train_dataloaders=train_dataloader, val_dataloaders=val_dataloader)

    best_model_path = trainer.checkpoint_callback.best_model_path
    best_tft = TemporalFusionTransformer.load_from_checkpoint(best_model_path)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <- fixed
    actuals = torch.cat([y[0] for x, y in iter(val_dataloader)]).to(device)  # <- fixed
    predictions = best_tft.predict(val_dataloader)
    print("MAE:", (actuals - predictions).abs().mean().item())
    print("SMAPE:", SMAPE()(predictions, actuals).item())
