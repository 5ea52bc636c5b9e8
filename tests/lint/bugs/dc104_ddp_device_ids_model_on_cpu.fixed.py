# devcheck bug corpus: DC104
# From: https://github.com/pytorch/pytorch/issues/46821
# In a multi-GPU ImageNet script the model.cuda(args.gpu) line was commented
# out before DistributedDataParallel(model, device_ids=[args.gpu]): "device_ids
# and output_device arguments only work with single-device CUDA modules".
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torchvision.models as models


def main_worker(gpu, ngpus_per_node, args):
    model = models.__dict__[args.arch]()
    if args.gpu is not None:
        torch.cuda.set_device(args.gpu)
        model.cuda(args.gpu)
        args.batch_size = int(args.batch_size / ngpus_per_node)
        model = torch.nn.parallel.DistributedDataParallel(  # <- fixed
            model, device_ids=[args.gpu], find_unused_parameters=True)
    return model
