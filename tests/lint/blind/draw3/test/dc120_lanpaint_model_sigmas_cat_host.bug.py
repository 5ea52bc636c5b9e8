# devcheck bug corpus: DC120
# From: https://github.com/scraed/LanPaint/issues/6
# LanPaint, an inpainting sampler for ComfyUI: its sampler wraps the model
# in KSamplerX0Inpaint with the run's sigmas (on the sampling device), and
# the wrapper's constructor prepended a zero to the model's own sigma table,
# `torch.cat((torch.tensor([0.], device=sigmas.device),
# model_sampling.sigmas))`. The model-sampling object's sigmas buffer is on
# the CPU, so with sigmas on cuda:0 the concatenation failed: "Expected all
# tensors to be on the same device, but found at least two devices, cuda:0
# and cpu! (when checking argument for argument tensors in method
# wrapper_CUDA_cat)". Fixed in the next version (commit 7c096d2, "fix device
# issue") by putting the table on sigmas' device before the cat.
# Written for devcheck's tests after the thread; not the project's code.
import torch
from comfy.samplers import KSAMPLER


class KSamplerX0Inpaint:
    def __init__(self, model, sigmas):
        self.inner_model = model
        self.sigmas = sigmas
        self.model_sigmas = torch.cat((torch.tensor([0.0], device=sigmas.device), self.inner_model.model_patcher.get_model_object("model_sampling").sigmas))  # <- bug
        self.model_sigmas = torch.tensor(self.model_sigmas, dtype=self.sigmas.dtype)

    def nearest_model_sigma(self, sigma):
        return self.model_sigmas[torch.argmin(torch.abs(self.model_sigmas - sigma))]

    def __call__(self, x, sigma, denoise_mask, model_options={}, seed=None):
        if denoise_mask is not None:
            latent_mask = 1 - (denoise_mask > 0.5).float()
            x = x * (1 - latent_mask) + self.inner_model.inner_model.scale_latent_inpaint(x=x, sigma=sigma, noise=self.noise, latent_image=self.latent_image) * latent_mask
            for i in range(self.n_steps):
                sigma_i = self.nearest_model_sigma(sigma * (1 - i / self.n_steps))
                out, _ = self.inner_model(x, sigma_i, model_options=model_options, seed=seed)
                x = x + self.step_size * (out - x) * (1 - latent_mask)
            out, _ = self.inner_model(x, sigma, model_options=model_options, seed=seed)
            return out * (1 - latent_mask) + self.latent_image * latent_mask
        out, _ = self.inner_model(x, sigma, model_options=model_options, seed=seed)
        return out


class KSAMPLER_LanPaint(KSAMPLER):
    def sample(self, model_wrap, sigmas, extra_args, callback, noise, latent_image=None, denoise_mask=None, disable_pbar=False):
        extra_args["denoise_mask"] = denoise_mask
        model_k = KSamplerX0Inpaint(model_wrap, sigmas)
        model_k.latent_image = latent_image
        model_k.noise = noise
        model_k.step_size = model_wrap.model_patcher.LanPaint_StepSize
        model_k.n_steps = model_wrap.model_patcher.LanPaint_NumSteps
        noise = model_wrap.inner_model.model_sampling.noise_scaling(sigmas[0], noise, latent_image, self.max_denoise(model_wrap, sigmas))
        return self.sampler_function(model_k, noise, sigmas, extra_args=extra_args, callback=callback, disable=disable_pbar, **self.extra_options)
