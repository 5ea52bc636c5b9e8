# devcheck bug corpus: DC120
# From: https://github.com/rotem-shalev/Ham2Pose/pull/6
# Fixed: forward picks the device (CUDA when available) and moves the first
# pose there before expanding it into the pose sequence; the test script's
# call is unchanged.
# Written for devcheck's tests after the thread; not the project's code.
import pytorch_lightning as pl
import torch
from torch import nn


class TextGuidedPoseGenerator(pl.LightningModule):
    def __init__(self, vocab_size, pose_dims=(137, 2), hidden_dim=128, num_steps=10):
        super().__init__()
        self.pose_dims = pose_dims
        self.num_steps = num_steps
        pose_dim = pose_dims[0] * pose_dims[1]
        self.embedding = nn.Embedding(vocab_size, hidden_dim)
        self.seq_length = nn.Linear(hidden_dim, 1)
        self.pose_projection = nn.Linear(pose_dim, hidden_dim)
        self.pose_diff = nn.Linear(hidden_dim, pose_dim)

    def encode_text(self, token_ids):
        encoded = self.embedding(token_ids.to(self.device))
        return encoded, self.seq_length(encoded).mean()

    def refine(self, data, text_encoding):
        b, t = data.shape[:2]
        h = self.pose_projection(data.reshape(b, t, -1)) + text_encoding.mean(0)
        return data + 0.1 * self.pose_diff(h).reshape(data.shape)

    def forward(self, token_ids, first_pose, sequence_length=-1):
        text_encoding, seq_len = self.encode_text(token_ids)
        if sequence_length == -1:
            sequence_length = max(int(round(float(seq_len))), 20)
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # <- fixed
        first_pose_to = first_pose.to(device)  # <- fixed
        data = first_pose_to.expand(1, sequence_length, *self.pose_dims)  # <- fixed
        while True:
            yield data[0]
            data = self.refine(data.detach(), text_encoding)


def pred(model, dataset, gen_k=30):
    preds = []
    model.eval()
    with torch.no_grad():
        for i, datum in enumerate(dataset):
            if i >= gen_k:
                break
            first_pose = datum["pose"]["data"][0]
            seq_iter = model.forward(datum["tokens"], first_pose=first_pose)  # <- fixed
            for _ in range(model.num_steps):
                seq = next(seq_iter)
            preds.append(seq.cpu())
    return preds


def test(checkpoint, dataset):
    model = TextGuidedPoseGenerator.load_from_checkpoint(checkpoint, vocab_size=1000)
    model = model.cuda()
    return pred(model, dataset)
