# devcheck bug corpus: DC105
# From: https://github.com/hkchengrex/Cutie/issues/37
# Running the video-segmentation demo on a computer without a GPU: the network
# weights, saved from CUDA, were loaded with torch.load(path) and no
# map_location: "Attempting to deserialize object on a CUDA device".
# Written for devcheck's tests after the thread; not the project's code.
import torch


def get_default_model(network, weights_path):
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model_weights = torch.load(weights_path, map_location=device)  # <- fixed
    network.load_weights(model_weights)
    return network.to(device).eval()
