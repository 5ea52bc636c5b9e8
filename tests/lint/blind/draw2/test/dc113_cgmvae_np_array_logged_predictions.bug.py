# devcheck bug corpus: DC113
# From: https://github.com/JunwenBai/C-GMVAE/pull/1
# The multi-label VAE's training loop appends each step's labels (moved to
# the device) and predictions (the model's output on the device) to two
# lists, and every check_freq steps flattens them with
# np.reshape(np.array(temp_pred_x), (-1)). On a GPU the lists hold CUDA
# tensors: "TypeError: can't convert cuda:0 device type tensor to numpy". The
# pull request converts each element with v.cpu().detach().numpy() first.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.optim as optim

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class LabelVAE(nn.Module):
    def __init__(self, feature_dim, label_dim, latent_dim):
        super().__init__()
        self.feat_enc = nn.Linear(feature_dim, latent_dim)
        self.label_enc = nn.Linear(label_dim, latent_dim)
        self.dec = nn.Linear(latent_dim, label_dim)

    def forward(self, label, feat):
        z_x = torch.relu(self.feat_enc(feat))
        z_y = torch.relu(self.label_enc(label))
        return self.dec(z_y), self.dec(z_x)


def train(args, features, labels):
    vae = LabelVAE(args.feature_dim, args.label_dim, args.latent_dim).to(device)
    vae.train()
    optimizer = optim.Adam(vae.parameters(), lr=args.learning_rate, weight_decay=1e-5)
    bce = nn.BCEWithLogitsLoss()
    temp_label, temp_pred_x = [], []
    current_step = 0
    for epoch in range(args.max_epoch):
        for start in range(0, len(features), args.batch_size):
            optimizer.zero_grad()
            input_feat = torch.from_numpy(features[start:start + args.batch_size]).to(device)
            input_label = torch.from_numpy(labels[start:start + args.batch_size]).float().to(device)
            logits_y, logits_x = vae(input_label, input_feat)
            total_loss = bce(logits_y, input_label) + bce(logits_x, input_label)
            total_loss.backward()
            optimizer.step()
            pred_x = torch.sigmoid(logits_x)
            temp_label.append(input_label)
            temp_pred_x.append(pred_x)
            current_step += 1
            if current_step % args.check_freq == 0:
                temp_pred_x = np.reshape(np.array(temp_pred_x), (-1))  # <- bug
                temp_label = np.reshape(np.array(temp_label), (-1))  # <- bug
                print("step=%d total_loss=%.6f" % (current_step, total_loss.item()))
                temp_pred_x = []
                temp_label = []
    return vae
