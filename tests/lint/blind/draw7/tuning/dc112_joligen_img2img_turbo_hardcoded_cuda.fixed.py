# devcheck bug corpus: DC112
# From: https://github.com/jolibrain/joliGEN/pull/731
# The fix (the PR's commit c0349b7) drops the hard-coded CUDA placements: the
# generator's parts follow the trainer's .to(device), and the tokens, the
# timesteps and the scheduler's alphas are moved to the input's device in
# forward.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import AutoTokenizer, CLIPTextModel


def make_1step_sched():
    sched = DDPMScheduler.from_pretrained("stabilityai/sd-turbo", subfolder="scheduler")
    sched.set_timesteps(1)  # <- fixed
    return sched


class Img2ImgTurbo(nn.Module):
    def __init__(self, prompt="a photo"):
        super().__init__()
        self.prompt = prompt
        self.tokenizer = AutoTokenizer.from_pretrained("stabilityai/sd-turbo", subfolder="tokenizer")
        self.text_encoder = CLIPTextModel.from_pretrained("stabilityai/sd-turbo", subfolder="text_encoder")  # <- fixed
        self.sched = make_1step_sched()
        vae = AutoencoderKL.from_pretrained("stabilityai/sd-turbo", subfolder="vae")
        vae.decoder.skip_conv_1 = nn.Conv2d(512, 512, kernel_size=1, bias=False)  # <- fixed
        vae.decoder.skip_conv_2 = nn.Conv2d(256, 512, kernel_size=1, bias=False)  # <- fixed
        unet = UNet2DConditionModel.from_pretrained("stabilityai/sd-turbo", subfolder="unet")
        self.unet, self.vae = unet, vae
        self.timesteps = torch.tensor([999]).long()  # <- fixed
        self.text_encoder.requires_grad_(False)

    def forward(self, x):
        caption_tokens = self.tokenizer(
            self.prompt, max_length=self.tokenizer.model_max_length,
            padding="max_length", truncation=True, return_tensors="pt",
        ).input_ids.to(x.device)  # <- fixed
        caption_enc = self.text_encoder(caption_tokens)[0].repeat(x.shape[0], 1, 1)
        encoded = self.vae.encode(x).latent_dist.sample() * self.vae.config.scaling_factor
        model_pred = self.unet(encoded, self.timesteps.to(x.device), encoder_hidden_states=caption_enc).sample  # <- fixed
        self.sched.alphas_cumprod = self.sched.alphas_cumprod.to(x.device)  # <- fixed
        x_denoised = self.sched.step(model_pred, self.timesteps.to(model_pred.device), encoded, return_dict=True).prev_sample  # <- fixed
        return self.vae.decode(x_denoised / self.vae.config.scaling_factor).sample.clamp(-1, 1)


class TurboGanModel:
    def __init__(self, gpu_ids, lr=2e-4):
        self.device = torch.device("cuda:{}".format(gpu_ids[0])) if gpu_ids else torch.device("cpu")
        self.netG = Img2ImgTurbo().to(self.device)
        params = [p for p in self.netG.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=lr)

    def optimize_parameters(self, real_A, real_B):
        real_A, real_B = real_A.to(self.device), real_B.to(self.device)
        fake_B = self.netG(real_A)
        loss = nn.functional.l1_loss(fake_B, real_B)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.detach()


if __name__ == "__main__":
    model = TurboGanModel(gpu_ids=[1])
    for _ in range(10):
        a = torch.rand(2, 3, 256, 256) * 2 - 1
        b = torch.rand(2, 3, 256, 256) * 2 - 1
        model.optimize_parameters(a, b)
