# devcheck bug corpus: DC104
# From: https://github.com/skyhehe123/SA-SSD/issues/17
# From: https://github.com/skyhehe123/SA-SSD/commit/fca4da0110eaff0d6741ead542029a12fb6a974d
# The fix (commit fca4da0) moves the detector to the GPU first and wraps the moved
# model, MMDistributedDataParallel(model.cuda()), so DDP sees CUDA parameters when
# it is built.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import pathlib

from mmcv import Config
from mmcv.parallel import MMDataParallel, MMDistributedDataParallel
from mmdet.datasets import build_dataloader, get_dataset
from mmdet.models import build_detector

from tools.env import get_root_logger, init_dist, set_random_seed
from tools.train_utils import train_model
from tools.train_utils.optimization import build_optimizer, build_scheduler


def parse_args():
    parser = argparse.ArgumentParser(description="train a 3D detector")
    parser.add_argument("config")
    parser.add_argument("--work_dir")
    parser.add_argument("--gpus", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--launcher", choices=["none", "pytorch", "slurm"], default="none")
    parser.add_argument("--local_rank", type=int, default=0)
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = Config.fromfile(args.config)
    if args.work_dir is not None:
        cfg.work_dir = args.work_dir
    pathlib.Path(cfg.work_dir).mkdir(parents=True, exist_ok=True)

    distributed = args.launcher != "none"
    if distributed:
        init_dist(args.launcher, **cfg.dist_params)
    logger = get_root_logger(cfg.work_dir)
    set_random_seed(args.seed)

    model = build_detector(cfg.model, train_cfg=cfg.train_cfg, test_cfg=cfg.test_cfg)
    if distributed:
        model = MMDistributedDataParallel(model.cuda())  # <- fixed
    else:
        model = MMDataParallel(model, device_ids=range(args.gpus)).cuda()

    dataset = get_dataset(cfg.data.train)
    optimizer = build_optimizer(model, cfg.optimizer)
    loader = build_dataloader(dataset, cfg.data.imgs_per_gpu, cfg.data.workers_per_gpu, dist=distributed)
    lr_scheduler, warmup = build_scheduler(
        optimizer, total_iters_each_epoch=len(loader), total_epochs=cfg.total_epochs,
        last_epoch=-1, optim_cfg=cfg.optimizer, lr_cfg=cfg.lr_config)

    logger.info("start training")
    train_model(model, optimizer, loader, lr_scheduler=lr_scheduler, optim_cfg=cfg.optimizer,
                start_epoch=0, total_epochs=cfg.total_epochs, start_iter=0,
                rank=args.local_rank, logger=logger, ckpt_save_dir=cfg.work_dir,
                lr_warmup_scheduler=warmup)


if __name__ == "__main__":
    main()
