# devcheck bug corpus: DC113
# From: https://github.com/pytorch/ignite/issues/1198
# Ignite's Pascal VOC segmentation reference script, trained distributed on
# GPUs (nccl): the evaluators run the model on config.device and a
# ConfusionMatrix metric accumulates there; at the end of training a
# handler logged the final confusion matrix with
# `cm_metric.compute().numpy()`, and compute() returns the all-reduced
# matrix on the GPU: "can't convert cuda:0 device type tensor to numpy".
# The fix (PR #1200) puts the matrix on the CPU before NumPy (and computes
# it on every process, logging from rank 0).
# Written for devcheck's tests after the thread; not the project's code.
import ignite.distributed as idist
import torch
from ignite.contrib.engines import common
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.metrics import ConfusionMatrix, IoU, mIoU
from torchvision.models.segmentation import deeplabv3_resnet101


def training(local_rank, config, logger=None):
    torch.backends.cudnn.benchmark = True
    device = idist.device()
    model = idist.auto_model(deeplabv3_resnet101(num_classes=config.num_classes))
    optimizer = idist.auto_optim(torch.optim.SGD(model.parameters(), lr=config.learning_rate, momentum=0.9))
    criterion = torch.nn.CrossEntropyLoss(ignore_index=255).to(device)
    trainer = create_supervised_trainer(
        model, optimizer, criterion, device=device, non_blocking=True,
        output_transform=lambda x, y, y_pred, loss: loss.item(), model_transform=lambda out: out["out"])
    cm_metric = ConfusionMatrix(num_classes=config.num_classes)
    val_metrics = {"IoU": IoU(cm_metric), "mIoU_bg": mIoU(cm_metric)}
    evaluator = create_supervised_evaluator(
        model, metrics=val_metrics, device=device, non_blocking=True,
        output_transform=lambda x, y, y_pred: (y_pred["out"], y))

    @trainer.on(Events.EPOCH_COMPLETED | Events.COMPLETED)
    def run_validation():
        state = evaluator.run(config.val_loader)
        if logger is not None:
            logger.info("Epoch {} - Test metrics: {}".format(trainer.state.epoch, state.metrics))

    if idist.get_rank() == 0:
        common.ProgressBar(persist=False).attach(trainer)
        if config.with_trains:
            from trains import Task

            trains_logger = Task.current_task().get_logger()

            @trainer.on(Events.COMPLETED)
            def log_cm():
                cm = cm_metric.compute().numpy()  # <- bug
                cm = cm / (cm.sum(axis=1)[:, None] + 1e-15)
                trains_logger.report_confusion_matrix(
                    title="Final Confusion Matrix", series="cm-preds-gt",
                    matrix=cm, iteration=trainer.state.iteration)

    trainer.run(config.train_loader, max_epochs=config.num_epochs)
