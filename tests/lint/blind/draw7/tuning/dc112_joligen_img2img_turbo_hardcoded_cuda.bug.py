# devcheck bug corpus: DC112
# From: https://github.com/jolibrain/joliGEN/pull/731
# joliGEN's img2img-turbo generator hard-codes .cuda() and device="cuda" for
# its text encoder, its added VAE skip convolutions, its timestep tensor, the
# scheduler's alphas and the caption tokens, while the trainer moves the
# generator to the GPU chosen by --gpu_ids: on any GPU but the current one the
# pieces end up on two devices.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import AutoTokenizer, CLIPTextModel


def make_1step_sched():
    sched = DDPMScheduler.from_pretrained("stabilityai/sd-turbo", subfolder="scheduler")
    sched.set_timesteps(1, device="cuda")  # <- bug
    sched.alphas_cumprod = sched.alphas_cumprod.cuda()  # <- bug
    return sched


class Img2ImgTurbo(nn.Module):
    def __init__(self, prompt="a photo"):
        super().__init__()
        self.prompt = prompt
        self.tokenizer = AutoTokenizer.from_pretrained("stabilityai/sd-turbo", subfolder="tokenizer")
        self.text_encoder = CLIPTextModel.from_pretrained("stabilityai/sd-turbo", subfolder="text_encoder").cuda()  # <- bug
        self.sched = make_1step_sched()
        vae = AutoencoderKL.from_pretrained("stabilityai/sd-turbo", subfolder="vae")
        vae.decoder.skip_conv_1 = nn.Conv2d(512, 512, kernel_size=1, bias=False).cuda()  # <- bug
        vae.decoder.skip_conv_2 = nn.Conv2d(256, 512, kernel_size=1, bias=False).cuda()  # <- bug
        unet = UNet2DConditionModel.from_pretrained("stabilityai/sd-turbo", subfolder="unet")
        self.unet, self.vae = unet, vae
        self.timesteps = torch.tensor([999], device="cuda").long()  # <- bug
        self.text_encoder.requires_grad_(False)

    def forward(self, x):
        caption_tokens = self.tokenizer(
            self.prompt, max_length=self.tokenizer.model_max_length,
            padding="max_length", truncation=True, return_tensors="pt",
        ).input_ids.cuda()  # <- bug
        caption_enc = self.text_encoder(caption_tokens)[0].repeat(x.shape[0], 1, 1)
        encoded = self.vae.encode(x).latent_dist.sample() * self.vae.config.scaling_factor
        model_pred = self.unet(encoded, self.timesteps, encoder_hidden_states=caption_enc).sample  # <- bug
        x_denoised = self.sched.step(model_pred, self.timesteps, encoded, return_dict=True).prev_sample  # <- bug
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
