# devcheck bug corpus: DC105
# From: https://github.com/bioimage-io/core-bioimage-io-python/issues/308
# The weight converter (convert-torch-weights-to-torchscript) loads a model's
# pytorch_state_dict weights with torch.load and no map_location: weights saved
# from a GPU fail to load on a CPU-only machine before any conversion happens.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import importlib

import torch


class ModelNode:
    def __init__(self, architecture, kwargs, weights_path, test_shape):
        self.architecture = architecture
        self.kwargs = kwargs
        self.weights_path = weights_path
        self.test_shape = test_shape


def get_nn_instance(node):
    module_name, class_name = node.architecture.rsplit(".", 1)
    model_class = getattr(importlib.import_module(module_name), class_name)
    return model_class(**node.kwargs)


def load_model(node):
    model = get_nn_instance(node)
    state = torch.load(node.weights_path)  # <- bug
    model.load_state_dict(state)
    model.eval()
    return model


def convert_weights_to_torchscript(node, output_path):
    model = load_model(node)
    example = torch.rand(*node.test_shape)
    with torch.no_grad():
        scripted = torch.jit.trace(model, example)
        expected = model(example)
        got = scripted(example)
    if not torch.allclose(expected, got, atol=1e-4):
        raise ValueError("traced model does not reproduce the original output")
    scripted.save(output_path)
    return output_path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("architecture")
    parser.add_argument("weights")
    parser.add_argument("output")
    parser.add_argument("--shape", type=int, nargs="+", default=[1, 1, 64, 64])
    args = parser.parse_args()
    node = ModelNode(args.architecture, {}, args.weights, args.shape)
    convert_weights_to_torchscript(node, args.output)


if __name__ == "__main__":
    main()
