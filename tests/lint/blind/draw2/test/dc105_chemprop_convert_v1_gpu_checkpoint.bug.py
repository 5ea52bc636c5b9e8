# devcheck bug corpus: DC105
# From: https://github.com/chemprop/chemprop/pull/978
# Chemprop's converter from v1 model files to v2 checkpoints loaded the v1
# .pt file with torch.load(model_v1_file). A v1 model trained on a GPU
# remembers its CUDA devices, so converting it on a CPU-only machine failed
# in the load. The pull request loads it with
# map_location=torch.device("cpu") (its other change, the v2 loaders' lambda
# map_location spelled as a device, fixes no bug and is left out).
# Written for devcheck's tests after the thread; not the project's code.
import argparse
from os import PathLike

import torch
from lightning.pytorch import __version__


def convert_state_dict_v1_to_v2(model_v1_dict: dict) -> dict:
    state_dict_v2 = {}
    args_v1 = model_v1_dict["args"]
    state_dict_v1 = model_v1_dict["state_dict"]
    for name in ("W_i.weight", "W_h.weight", "W_o.weight", "W_o.bias"):
        state_dict_v2[f"message_passing.{name}"] = state_dict_v1[f"encoder.encoder.0.{name}"]
    for i in range(args_v1.ffn_num_layers):
        suffix = 0 if i == 0 else 2
        state_dict_v2[f"predictor.ffn.{i}.{suffix}.weight"] = state_dict_v1[f"readout.{i * 3 + 1}.weight"]
        state_dict_v2[f"predictor.ffn.{i}.{suffix}.bias"] = state_dict_v1[f"readout.{i * 3 + 1}.bias"]
    if args_v1.dataset_type == "regression":
        scaler = model_v1_dict["data_scaler"]
        state_dict_v2["predictor.output_transform.mean"] = torch.tensor(scaler["means"], dtype=torch.float32).unsqueeze(0)
        state_dict_v2["predictor.output_transform.scale"] = torch.tensor(scaler["stds"], dtype=torch.float32).unsqueeze(0)
    state_dict_v2["predictor.criterion.task_weights"] = torch.ones(args_v1.num_tasks).unsqueeze(0)
    return state_dict_v2


def convert_model_dict_v1_to_v2(model_v1_dict: dict) -> dict:
    return {
        "epoch": None,
        "global_step": None,
        "pytorch-lightning_version": __version__,
        "state_dict": convert_state_dict_v1_to_v2(model_v1_dict),
        "hparams_name": "kwargs",
        "hyper_parameters": {"batch_norm": False},
    }


def convert_model_file_v1_to_v2(model_v1_file: PathLike, model_v2_file: PathLike) -> None:
    model_v1_dict = torch.load(model_v1_file)  # <- bug
    model_v2_dict = convert_model_dict_v1_to_v2(model_v1_dict)
    torch.save(model_v2_dict, model_v2_file)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="convert a chemprop v1 model file to a v2 checkpoint")
    parser.add_argument("input_path")
    parser.add_argument("output_path")
    args = parser.parse_args()
    convert_model_file_v1_to_v2(args.input_path, args.output_path)
