# devcheck bug corpus: DC120
# From: https://github.com/haoosz/ConceptExpress/issues/5
# ConceptExpress trains new concept tokens of a text encoder that Accelerate
# has put on the GPU (with the UNet, the dataloader and the optimizer). The
# training step tokenized the empty prompt, and the token manager tokenized
# the concept prompts, with return_tensors="pt" (on the CPU), and handed the
# ids to the text encoder: "Expected all tensors to be on the same device,
# but found at least two devices, cuda:0 and cpu! (when checking argument for
# argument index in method wrapper__index_select)". The answer in the thread:
# move both to latents.device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F
from accelerate import Accelerator
from diffusers import AutoencoderKL, DDPMScheduler, UNet2DConditionModel
from transformers import CLIPTextModel, CLIPTokenizer


class TokenManager:
    def __init__(self, placeholder_tokens, tokenizer):
        self.ph_tokens = placeholder_tokens
        self.tokenizer = tokenizer

    def loader(self, bsz):
        prompt = "a photo of " + " and ".join(self.ph_tokens)
        prompt_ids = self.tokenizer(
            [prompt] * bsz, truncation=True, padding="max_length",
            max_length=self.tokenizer.model_max_length, return_tensors="pt",
        ).input_ids
        return [prompt_ids]


class ConceptExpress:
    def __init__(self, model_path, placeholder_tokens):
        self.accelerator = Accelerator()
        self.tokenizer = CLIPTokenizer.from_pretrained(model_path, subfolder="tokenizer")
        self.text_encoder = CLIPTextModel.from_pretrained(model_path, subfolder="text_encoder")
        self.vae = AutoencoderKL.from_pretrained(model_path, subfolder="vae")
        self.unet = UNet2DConditionModel.from_pretrained(model_path, subfolder="unet")
        self.noise_scheduler = DDPMScheduler.from_pretrained(model_path, subfolder="scheduler")
        self.token_manager = TokenManager(placeholder_tokens, self.tokenizer)

    def main(self, train_dataloader, max_steps):
        optimizer = torch.optim.AdamW(self.text_encoder.get_input_embeddings().parameters(), lr=5e-4)
        self.unet, self.text_encoder, optimizer, train_dataloader = self.accelerator.prepare(
            self.unet, self.text_encoder, optimizer, train_dataloader
        )
        self.vae.to(self.accelerator.device)
        for global_step, batch in zip(range(max_steps), train_dataloader):
            latents = self.vae.encode(batch["pixel_values"]).latent_dist.sample() * 0.18215
            bsz = latents.shape[0]
            if global_step == 0:
                null_input_ids = self.tokenizer(
                    [""] * bsz, truncation=True, padding="max_length",
                    max_length=self.tokenizer.model_max_length, return_tensors="pt",
                ).input_ids  # <- bug
                with torch.no_grad():
                    self.text_encoder(null_input_ids)[0]  # <- bug
            noise = torch.randn_like(latents)
            timesteps = torch.randint(0, 1000, (bsz,), device=latents.device).long()
            noisy_latents = self.noise_scheduler.add_noise(latents, noise, timesteps)
            for prompt_ids in self.token_manager.loader(bsz):
                encoder_hidden_states = self.text_encoder(prompt_ids)[0]  # <- bug
                model_pred = self.unet(noisy_latents, timesteps, encoder_hidden_states).sample
                loss = F.mse_loss(model_pred.float(), noise.float())
                self.accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
