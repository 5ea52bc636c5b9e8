# devcheck bug corpus: DC105
# From: https://github.com/open-mmlab/mmsegmentation/pull/152
# Fixed (as the review suggested): the model is still on the CPU when the
# checkpoint is loaded, so load_checkpoint is given map_location='cpu'; the
# model is moved to the requested device afterwards.
# Written for devcheck's tests after the thread; not the project's code.
import mmcv
import torch
from mmcv.runner import load_checkpoint
from mmseg.models import build_segmentor


def init_segmentor(config, checkpoint=None, device="cuda:0"):
    if isinstance(config, str):
        config = mmcv.Config.fromfile(config)
    config.model.pretrained = None
    model = build_segmentor(config.model, test_cfg=config.test_cfg)
    if checkpoint is not None:
        checkpoint = load_checkpoint(model, checkpoint, map_location="cpu")  # <- fixed
        model.CLASSES = checkpoint["meta"]["CLASSES"]
        model.PALETTE = checkpoint["meta"]["PALETTE"]
    model.cfg = config
    model.to(device)
    model.eval()
    return model


def inference_segmentor(model, img):
    device = next(model.parameters()).device
    data = torch.from_numpy(mmcv.imread(img)).permute(2, 0, 1).float().unsqueeze(0).to(device)
    with torch.no_grad():
        return model(img=[data], img_metas=[[{"ori_shape": data.shape[2:]}]], return_loss=False)


if __name__ == "__main__":
    model = init_segmentor("configs/pspnet/pspnet_r50-d8_512x1024_40k_cityscapes.py",
                           "checkpoints/pspnet_r50-d8_512x1024_40k_cityscapes.pth", device="cpu")
    result = inference_segmentor(model, "demo/demo.png")
