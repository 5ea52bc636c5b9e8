# devcheck bug corpus: DC120
# From: https://github.com/huggingface/diffusers/pull/2382
# From: https://github.com/huggingface/diffusers/commit/ca980fd0d1003407dbab7300ce15b0af2ded3bd9
# The text-to-image script moves its EMA copy of the UNet to the accelerator's device
# after prepare(), but when a run resumes, the load hook (run by accelerator.load_state,
# later) replaces the EMA weights with ones loaded on the CPU and never moves them:
# the first ema_unet.step(unet.parameters()) mixes CPU shadow weights with CUDA ones.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import DDPMScheduler, UNet2DConditionModel
from diffusers.training_utils import EMAModel


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--pretrained_model_name_or_path", required=True)
    p.add_argument("--output_dir", default="sd-model-finetuned")
    p.add_argument("--use_ema", action="store_true")
    p.add_argument("--resume_from_checkpoint", default=None)
    p.add_argument("--learning_rate", type=float, default=1e-4)
    return p.parse_args()


def main(train_dataloader):
    args = parse_args()
    accelerator = Accelerator(gradient_accumulation_steps=1)
    noise_scheduler = DDPMScheduler.from_pretrained(args.pretrained_model_name_or_path, subfolder="scheduler")
    unet = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")

    if args.use_ema:
        ema_source = UNet2DConditionModel.from_pretrained(args.pretrained_model_name_or_path, subfolder="unet")
        ema_unet = EMAModel(ema_source.parameters(), model_cls=UNet2DConditionModel, model_config=ema_source.config)

    def save_model_hook(models, weights, output_dir):
        if args.use_ema:
            ema_unet.save_pretrained(os.path.join(output_dir, "unet_ema"))
        for model in models:
            model.save_pretrained(os.path.join(output_dir, "unet"))
            weights.pop()

    def load_model_hook(models, input_dir):
        if args.use_ema:
            loaded = EMAModel.from_pretrained(os.path.join(input_dir, "unet_ema"), UNet2DConditionModel)
            ema_unet.load_state_dict(loaded.state_dict())  # <- bug
            del loaded
        for _ in range(len(models)):
            model = models.pop()
            loaded = UNet2DConditionModel.from_pretrained(input_dir, subfolder="unet")
            model.register_to_config(**loaded.config)
            model.load_state_dict(loaded.state_dict())
            del loaded

    accelerator.register_save_state_pre_hook(save_model_hook)
    accelerator.register_load_state_pre_hook(load_model_hook)

    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.learning_rate)
    unet, optimizer, train_dataloader = accelerator.prepare(unet, optimizer, train_dataloader)
    if args.use_ema:
        ema_unet.to(accelerator.device)

    if args.resume_from_checkpoint:
        accelerator.load_state(os.path.join(args.output_dir, args.resume_from_checkpoint))

    for batch in train_dataloader:
        with accelerator.accumulate(unet):
            latents = batch["latents"]
            noise = torch.randn_like(latents)
            timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (latents.shape[0],), device=latents.device)
            noisy = noise_scheduler.add_noise(latents, noise, timesteps)
            pred = unet(noisy, timesteps, batch["encoder_hidden_states"]).sample
            loss = F.mse_loss(pred.float(), noise.float())
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        if accelerator.sync_gradients and args.use_ema:
            ema_unet.step(unet.parameters())
