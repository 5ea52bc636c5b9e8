# devcheck bug corpus: DC120
# From: https://github.com/lucidrains/vector-quantize-pytorch/issues/37
# The README example run on a GPU: the input batch is moved to cuda, but the
# VectorQuantize module (whose codebook is a buffer) is left where it was
# built, on the CPU; the distance computation between the inputs and the
# codebook fails ("X1 and X2 must have the same device type").
# Written for devcheck's tests after the thread; not the project's code.
import torch
from vector_quantize_pytorch import VectorQuantize


def quantize_batch(vq, x):
    quantized, indices, commit_loss = vq(x)
    return quantized, indices, commit_loss


if __name__ == "__main__":
    vq = VectorQuantize(  # <- bug
        dim=256,
        codebook_size=512,
        decay=0.8,
        commitment_weight=1.0,
    )

    x = torch.randn(1, 1024, 256)
    x = x.cuda()
    quantized, indices, commit_loss = quantize_batch(vq, x)
    print(quantized.shape, indices.shape, commit_loss.item())
