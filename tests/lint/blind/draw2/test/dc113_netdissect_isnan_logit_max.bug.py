# devcheck bug corpus: DC113
# From: https://github.com/CSAILVision/NetDissect-Lite/pull/5
# Network dissection extracts the activations of a torchvision model, moved
# to the GPU when settings.GPU is set, with the batch moved there too. The
# extraction loop retried the forward pass while np.isnan(logit.data.max())
# held; the max of the CUDA logits is a CUDA tensor, and NumPy failed on it:
# "can't convert CUDA tensor to numpy. Use Tensor.cpu() to copy the tensor
# to host memory first". The pull request takes the max on the host,
# `logit.data.cpu().max()`.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torchvision

GPU = True
MODEL = "resnet18"
FEATURE_NAMES = ["layer4"]

features_blobs = []


def hook_feature(module, input, output):
    features_blobs.append(output.data.cpu().numpy())


def loadmodel(hook_fn):
    model = torchvision.models.__dict__[MODEL](pretrained=True)
    for name in FEATURE_NAMES:
        model._modules.get(name).register_forward_hook(hook_fn)
    if GPU:
        model.cuda()
    model.eval()
    return model


class FeatureOperator:
    def __init__(self, batches):
        self.batches = batches

    def feature_extraction(self, model):
        maxfeatures = []
        with torch.no_grad():
            for batch in self.batches:
                del features_blobs[:]
                input = torch.from_numpy(batch[:, ::-1, :, :].copy())
                input.div_(255.0 * 0.224)
                if GPU:
                    input = input.cuda()
                logit = model.forward(input)
                while np.isnan(logit.data.max()):  # <- bug
                    print("nan")
                    del features_blobs[:]
                    logit = model.forward(input)
                maxfeatures.append(np.max(np.max(features_blobs[0], 3), 2))
        return np.concatenate(maxfeatures)


if __name__ == "__main__":
    fo = FeatureOperator([np.random.rand(8, 3, 224, 224).astype(np.float32) * 255 for _ in range(4)])
    print(fo.feature_extraction(model=loadmodel(hook_feature)).shape)
