# devcheck bug corpus: DC111
# From: https://github.com/unit8co/darts/pull/3053
# From: https://github.com/unit8co/darts/issues/3052
# Darts' TFT module caches its attention mask and relative index in plain
# attributes, rebuilt only when the batch size changes. Trained on the GPU,
# the cache holds GPU tensors; moving the trained module to the CPU does not
# move plain attributes, so the next forward with the same batch size mixes
# the cached GPU tensors with CPU inputs.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class TFTModule(nn.Module):
    def __init__(self, input_chunk_length, output_chunk_length, n_features, hidden=32,
                 add_relative_index=True):
        super().__init__()
        self.input_chunk_length = input_chunk_length
        self.output_chunk_length = output_chunk_length
        self.add_relative_index = add_relative_index
        in_dim = n_features + (1 if add_relative_index else 0)
        self.embed = nn.Linear(in_dim, hidden)
        self.attn = nn.MultiheadAttention(hidden, 4, batch_first=True)
        self.out = nn.Linear(hidden, 1)
        self.batch_size_last = -1
        self.attention_mask = None  # <- bug
        self.relative_index = None  # <- bug

    @staticmethod
    def get_relative_index(encoder_length, decoder_length, batch_size, dtype, device):
        index = torch.arange(encoder_length + decoder_length, dtype=dtype, device=device)
        index = index / (encoder_length - 1)
        return index.reshape(1, len(index), 1).repeat(batch_size, 1, 1)

    @staticmethod
    def get_attention_mask_future(encoder_length, decoder_length, batch_size, device):
        attend_step = torch.arange(decoder_length, device=device)
        predict_step = torch.arange(0, decoder_length, device=device)[:, None]
        decoder_mask = attend_step >= predict_step
        encoder_mask = torch.zeros(batch_size, encoder_length, dtype=torch.bool, device=device)
        return torch.cat((encoder_mask.unsqueeze(1).expand(-1, decoder_length, -1),
                          decoder_mask.unsqueeze(0).expand(batch_size, -1, -1)), dim=2)

    def forward(self, x_past, x_future):
        device = x_past.device
        batch_size = x_past.shape[0]
        enc, dec = self.input_chunk_length, self.output_chunk_length
        if batch_size != self.batch_size_last:
            self.attention_mask = self.get_attention_mask_future(enc, dec, batch_size, device)
            if self.add_relative_index:
                self.relative_index = self.get_relative_index(enc, dec, batch_size, x_past.dtype, device)
            self.batch_size_last = batch_size
        if self.add_relative_index:
            x_past = torch.cat([x_past, self.relative_index[:, :enc, :]], dim=2)
            x_future = torch.cat([x_future, self.relative_index[:, -dec:, :]], dim=2)
        h = self.embed(torch.cat([x_past, x_future], dim=1))
        mask = self.attention_mask.repeat_interleave(self.attn.num_heads, dim=0)
        out, _ = self.attn(h[:, enc:], h, h, attn_mask=mask)
        return self.out(out)


if __name__ == "__main__":
    module = TFTModule(input_chunk_length=4, output_chunk_length=2, n_features=3)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    module.to(device)
    optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)
    for _ in range(5):
        past, future, y = torch.randn(8, 4, 3), torch.randn(8, 2, 3), torch.randn(8, 2, 1)
        loss = nn.functional.mse_loss(module(past.to(device), future.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    module.to("cpu")
    with torch.no_grad():
        print(module(torch.randn(8, 4, 3), torch.randn(8, 2, 3)).shape)
