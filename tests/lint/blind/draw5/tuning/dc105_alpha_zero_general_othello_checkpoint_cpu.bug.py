# devcheck bug corpus: DC105
# From: https://github.com/suragnair/alpha-zero-general/pull/98
# From: https://github.com/suragnair/alpha-zero-general/commit/b9f93486f31e1206aaa557b85292d16e2792dab2
# The Othello network wrapper loads its checkpoints with a bare torch.load:
# the pretrained checkpoints were saved from a GPU, so on a CPU-only machine
# loading them to play against fails ("Attempting to deserialize object on a
# CUDA device").
# Written for devcheck's tests after the thread; not the project's code.
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class dotdict(dict):
    def __getattr__(self, name):
        return self[name]


args = dotdict({"lr": 0.001, "dropout": 0.3, "cuda": torch.cuda.is_available(), "num_channels": 64})


class OthelloNNet(nn.Module):
    def __init__(self, board_x, board_y, action_size, args):
        super().__init__()
        self.board_x, self.board_y = board_x, board_y
        self.conv = nn.Conv2d(1, args.num_channels, 3, padding=1)
        self.fc_pi = nn.Linear(args.num_channels * board_x * board_y, action_size)
        self.fc_v = nn.Linear(args.num_channels * board_x * board_y, 1)

    def forward(self, s):
        s = F.relu(self.conv(s.view(-1, 1, self.board_x, self.board_y))).flatten(1)
        return F.log_softmax(self.fc_pi(s), dim=1), torch.tanh(self.fc_v(s))


class NNetWrapper:
    def __init__(self, board_x=8, board_y=8):
        self.board_x, self.board_y = board_x, board_y
        self.action_size = board_x * board_y + 1
        self.nnet = OthelloNNet(board_x, board_y, self.action_size, args)
        if args.cuda:
            self.nnet.cuda()

    def predict(self, board):
        board = torch.FloatTensor(board.astype(np.float64))
        if args.cuda:
            board = board.contiguous().cuda()
        board = board.view(1, self.board_x, self.board_y)
        self.nnet.eval()
        with torch.no_grad():
            pi, v = self.nnet(board)
        return torch.exp(pi).data.cpu().numpy()[0], v.data.cpu().numpy()[0]

    def save_checkpoint(self, folder="checkpoint", filename="checkpoint.pth.tar"):
        os.makedirs(folder, exist_ok=True)
        torch.save({"state_dict": self.nnet.state_dict()}, os.path.join(folder, filename))

    def load_checkpoint(self, folder="checkpoint", filename="checkpoint.pth.tar"):
        filepath = os.path.join(folder, filename)
        if not os.path.exists(filepath):
            raise FileNotFoundError("No model in path {}".format(filepath))
        checkpoint = torch.load(filepath)  # <- bug
        self.nnet.load_state_dict(checkpoint["state_dict"])


if __name__ == "__main__":
    player = NNetWrapper()
    player.load_checkpoint("./pretrained_models/othello/pytorch/", "8x8_100checkpoints_best.pth.tar")
    board = np.zeros((8, 8))
    board[3, 3] = board[4, 4] = 1
    board[3, 4] = board[4, 3] = -1
    pi, v = player.predict(board)
    print(int(np.argmax(pi)), float(v))
