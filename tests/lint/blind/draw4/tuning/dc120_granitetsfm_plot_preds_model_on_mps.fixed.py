# devcheck bug corpus: DC120
# From: https://github.com/ibm-granite/granite-tsfm/issues/40
# From: https://github.com/ibm-granite/granite-tsfm/commit/89c09a2b4c1cd7d5b4c04042d86eb5a897fabea3
# The fix (commit 89c09a2, "model to device in plotting") moves trainer.model
# to the device the helper chose before calling it on the windows copied
# there, so model and inputs agree whatever device the Trainer had used.
# Written for devcheck's tests after the thread; not the project's code.
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import torch
from transformers import Trainer, TrainingArguments

from tsfm_public.models.tinytimemixer import TinyTimeMixerForPrediction
from tsfm_public.toolkit.time_series_preprocessor import TimeSeriesPreprocessor


def plot_preds(trainer, dset, plot_dir, num_plots=5, plot_prefix="valid", channel=-1):
    device = torch.cuda.current_device() if torch.cuda.is_available() else torch.device("cpu")
    picks = np.random.choice(len(dset), size=num_plots, replace=False)
    windows = torch.stack([dset[i]["past_values"] for i in picks])
    trainer.model = trainer.model.to(device)  # <- fixed
    output = trainer.model(windows.to(device=device))  # <- fixed
    y_hat = output.prediction_outputs[:, :, channel].detach().cpu().numpy()
    horizon = y_hat.shape[1]

    fig, axs = plt.subplots(num_plots, 1, figsize=(10, 3 * num_plots))
    for row, idx in enumerate(picks):
        item = dset[idx]
        history = item["past_values"][-2 * horizon:, channel].numpy()
        truth = item["future_values"][:horizon, channel].numpy()
        axs[row].plot(np.concatenate((history, truth)), label="True")
        axs[row].plot(np.concatenate((history, y_hat[row])), "--", label="Predicted")
        axs[row].axvline(x=len(history), color="r")
        axs[row].legend()
    os.makedirs(plot_dir, exist_ok=True)
    fig.savefig(os.path.join(plot_dir, f"{plot_prefix}_ch_{channel}.pdf"))


if __name__ == "__main__":
    data = pd.read_csv("ETTm2.csv", parse_dates=["date"])
    targets = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
    split_config = {"train": [0, 34560], "valid": [34560, 46080], "test": [46080, 57600]}
    tsp = TimeSeriesPreprocessor(
        timestamp_column="date",
        id_columns=[],
        target_columns=targets,
        context_length=512,
        prediction_length=96,
        scaling=True,
        scaler_type="standard",
    )
    train_dataset, valid_dataset, test_dataset = tsp.get_datasets(data, split_config)

    zeroshot_model = TinyTimeMixerForPrediction.from_pretrained("ibm/TTM", revision="main")
    zeroshot_trainer = Trainer(
        model=zeroshot_model,
        args=TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_eval_batch_size=64),
    )
    print(zeroshot_trainer.evaluate(test_dataset))
    plot_preds(zeroshot_trainer, test_dataset, "plots/ettm2", plot_prefix="test_zeroshot", channel=0)
