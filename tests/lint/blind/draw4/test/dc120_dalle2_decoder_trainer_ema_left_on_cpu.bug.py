# devcheck bug corpus: DC120
# From: https://github.com/lucidrains/DALLE2-pytorch/issues/87
# From: https://github.com/lucidrains/DALLE2-pytorch/commit/924455d97d0e0230ba6a34c5d3af792d272af481
# DecoderTrainer.sample swaps the EMA unets into the decoder, whose cascading sampler
# keeps one unet on the GPU at a time and moves each back to the CPU when done. The EMA
# copies stay on the CPU after sampling, so the next update() averages CPU EMA weights
# with the online unet's CUDA weights: "found at least two devices, cuda:0 and cpu".
# Written for devcheck's tests after the thread; not the project's code.
import copy
from contextlib import contextmanager, nullcontext

import torch
import torch.nn as nn


class EMA(nn.Module):
    def __init__(self, model, beta=0.99, update_every=10):
        super().__init__()
        self.beta = beta
        self.update_every = update_every
        self.online_model = model
        self.ema_model = copy.deepcopy(model)
        self.register_buffer("step", torch.tensor([0.0]))

    def update(self):
        self.step += 1
        if self.step % self.update_every != 0:
            return
        for cur, ema in zip(self.online_model.parameters(), self.ema_model.parameters()):
            ema.data = ema.data * self.beta + (1 - self.beta) * cur.data


class Decoder(nn.Module):
    def __init__(self, unets):
        super().__init__()
        self.unets = nn.ModuleList(unets)

    @contextmanager
    def one_unet_in_gpu(self, unet):
        self.unets.cpu()  # <- bug
        unet.cuda()
        yield
        unet.cpu()  # <- bug

    @torch.no_grad()
    def sample(self, image_embed):
        img = torch.randn(image_embed.shape[0], 3, 64, 64, device=image_embed.device)
        for unet in self.unets:
            context = self.one_unet_in_gpu(unet) if image_embed.is_cuda else nullcontext()
            with context:
                img = unet(img)
        return img

    def forward(self, images, unet_number):
        unet = self.unets[unet_number - 1]
        return ((unet(images) - images) ** 2).mean()


class DecoderTrainer(nn.Module):
    def __init__(self, decoder, lr=1e-4):
        super().__init__()
        self.decoder = decoder
        self.ema_unets = nn.ModuleList([EMA(u) for u in decoder.unets])
        self.optims = [torch.optim.Adam(u.parameters(), lr=lr) for u in decoder.unets]

    def update(self, unet_number):
        self.optims[unet_number - 1].step()
        self.optims[unet_number - 1].zero_grad()
        self.ema_unets[unet_number - 1].update()

    @torch.no_grad()
    def sample(self, image_embed):
        trainable_unets = self.decoder.unets
        self.decoder.unets = nn.ModuleList([e.ema_model for e in self.ema_unets])
        output = self.decoder.sample(image_embed)
        self.decoder.unets = trainable_unets
        return output

    def forward(self, images, unet_number):
        return self.decoder(images, unet_number)


def train(train_dl):
    decoder = Decoder([nn.Conv2d(3, 3, 3, padding=1), nn.Conv2d(3, 3, 3, padding=1)])
    trainer = DecoderTrainer(decoder).cuda()
    for step, (images, image_embed) in enumerate(train_dl):
        images, image_embed = images.cuda(), image_embed.cuda()
        loss = trainer(images, unet_number=1)
        loss.backward()
        trainer.update(unet_number=1)
        if step % 100 == 0:
            trainer.sample(image_embed)
