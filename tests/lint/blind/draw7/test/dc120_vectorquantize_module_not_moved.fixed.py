# devcheck bug corpus: DC120
# From: https://github.com/lucidrains/vector-quantize-pytorch/issues/37
# Fixed as the maintainer answers: the VectorQuantize module is put on cuda
# as well, so its codebook is where the inputs are.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from vector_quantize_pytorch import VectorQuantize


def quantize_batch(vq, x):
    quantized, indices, commit_loss = vq(x)
    return quantized, indices, commit_loss


if __name__ == "__main__":
    vq = VectorQuantize(  # <- fixed
        dim=256,
        codebook_size=512,
        decay=0.8,
        commitment_weight=1.0,
    )
    vq = vq.cuda()  # <- fixed

    x = torch.randn(1, 1024, 256)
    x = x.cuda()
    quantized, indices, commit_loss = quantize_batch(vq, x)
    print(quantized.shape, indices.shape, commit_loss.item())
