# devcheck bug corpus: DC101
# From: https://github.com/mittagessen/kraken/issues/793
# Fixed as the reporter's working fix (the issue was then fixed in main):
# _lengths_and_mask moves the sequence lengths to the device of the feature
# map before using them, so the CPU LongTensor of line widths is made right
# where it is used.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from lightning.fabric import Fabric


def _lengths_and_mask(seq_lens, w_in, w_out, device):
    seq_lens = seq_lens.to(device)  # <- fixed
    scaled = (seq_lens.to(torch.float32) * (w_out / float(w_in))).floor().long()
    out_lens = scaled.clamp(min=1, max=w_out)
    positions = torch.arange(w_out, device=device)
    mask = positions[None, :] < out_lens[:, None]
    return out_lens, mask


class PPOCRRecognizer(nn.Module):
    def __init__(self, num_classes=96, dim=64, height=48):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(1, dim, 3, stride=4, padding=1),
            nn.ReLU(),
            nn.AvgPool2d((height // 4, 2)),
        )
        self.neck = nn.TransformerEncoderLayer(dim, 4, batch_first=True)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x, seq_lens=None):
        w_in = x.shape[3]
        feat = self.backbone(x)
        w_out = feat.shape[3]
        out_lens, mask = None, None
        if seq_lens is not None:
            out_lens, mask = _lengths_and_mask(seq_lens, w_in, w_out, feat.device)
        seq = feat.squeeze(2).transpose(1, 2)
        seq = self.neck(seq, src_key_padding_mask=None if mask is None else ~mask)
        logits = self.head(seq).permute(0, 2, 1).unsqueeze(2)
        return logits, out_lens


class RecognitionInference:
    def __init__(self, net, batch_size=4):
        self._fabric = Fabric(accelerator="auto", devices=1)
        self.nn = self._fabric.setup_module(net)
        self.batch_size = batch_size

    def _rec_predict(self, line, lens=None):
        logits, olens = self.nn(line, lens)
        probs = logits.softmax(1).squeeze(2)
        return probs.argmax(1), olens

    def predict(self, lines):
        results = []
        with self._fabric.init_tensor():
            for start in range(0, len(lines), self.batch_size):
                batch = lines[start:start + self.batch_size]
                max_len = max(seq.shape[2] for seq in batch)
                seqs = torch.zeros(len(batch), 1, batch[0].shape[1], max_len)
                for i, seq in enumerate(batch):
                    seqs[i, :, :, :seq.shape[2]] = seq
                seq_lens = torch.LongTensor([seq.shape[2] for seq in batch])  # <- fixed
                preds, olens = self._rec_predict(seqs, seq_lens)
                for pred, olen in zip(preds, olens):
                    results.append(pred[:olen].tolist())
        return results


if __name__ == "__main__":
    recognizer = RecognitionInference(PPOCRRecognizer().eval())
    lines = [torch.rand(1, 48, 64 + 32 * i) for i in range(6)]
    with torch.no_grad():
        for labels in recognizer.predict(lines):
            print(len(labels))
