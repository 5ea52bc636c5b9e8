# devcheck bug corpus: DC112
# From: https://github.com/naver-ai/DenseDiffusion/pull/18
# The PR's fix moves the segmentation layouts with .to(device), the device the rest of
# the notebook uses, instead of a bare .cuda().
# (The notebook's cells are written here as one script.)
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from diffusers import DDIMScheduler, StableDiffusionPipeline

device = "cuda:0"

pipe = StableDiffusionPipeline.from_pretrained("runwayml/stable-diffusion-v1-5", safety_checker=None).to(device)
pipe.scheduler = DDIMScheduler.from_config(pipe.scheduler.config)
pipe.scheduler.set_timesteps(50)
sp_sz = pipe.unet.sample_size
bsz = 4

prompts = ["a dog and a cat on a sofa", "a dog", "a cat", "a sofa"]
text_input = pipe.tokenizer(prompts, padding="max_length", max_length=pipe.tokenizer.model_max_length,
                            truncation=True, return_tensors="pt")
cond_embeddings = pipe.text_encoder(text_input.input_ids.to(device))[0]

layout_img_ = np.asarray(Image.open("dataset/valset_layout/5.png").resize([sp_sz * 8, sp_sz * 8]))[:, :, :3]
unique, counts = np.unique(np.reshape(layout_img_, (-1, 3)), axis=0, return_counts=True)
sorted_idx = np.argsort(-counts)
layouts_ = []
for i in range(len(prompts) - 1):
    layouts_.append(((layout_img_ == unique[sorted_idx[i]]).sum(-1) == 3).astype(np.uint8))

layouts = [torch.FloatTensor(l).unsqueeze(0).unsqueeze(0).to(device) for l in layouts_]  # <- fixed
layouts = F.interpolate(torch.cat(layouts), (sp_sz, sp_sz), mode="nearest")

sreg_maps, reg_sizes = {}, {}
for r in range(4):
    res = int(sp_sz / np.power(2, r))
    layouts_s = F.interpolate(layouts, (res, res), mode="nearest")
    layouts_s = (layouts_s.view(layouts_s.size(0), 1, -1) * layouts_s.view(layouts_s.size(0), -1, 1)).sum(0).unsqueeze(0).repeat(bsz, 1, 1)
    reg_sizes[np.power(res, 2)] = 1 - 1.0 * layouts_s.sum(-1, keepdim=True) / (np.power(res, 2))
    sreg_maps[np.power(res, 2)] = layouts_s
