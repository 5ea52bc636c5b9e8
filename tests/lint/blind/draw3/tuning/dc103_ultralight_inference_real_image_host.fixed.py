# devcheck bug corpus: DC103
# From: https://github.com/anliyuan/Ultralight-Digital-Human/issues/156
# Fixed (commit ff0454d): the reference crop is moved to the device too
# before it is concatenated with the masked crop.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import os

import cv2
import numpy as np
import torch
from unet import Model

parser = argparse.ArgumentParser(description="Train")
parser.add_argument("--asr", type=str, default="hubert")
parser.add_argument("--dataset", type=str, default="")
parser.add_argument("--audio_feat", type=str, default="")
parser.add_argument("--save_path", type=str, default="")
parser.add_argument("--checkpoint", type=str, default="")
args = parser.parse_args()
mode = args.asr

device = "cuda" if torch.cuda.is_available() else "cpu"


def get_audio_features(features, index):
    left, right = max(index - 4, 0), min(index + 4, features.shape[0])
    auds = torch.from_numpy(features[left:right])
    if index - 4 < 0:
        auds = torch.cat([torch.zeros_like(auds[: 4 - index]), auds], dim=0)
    if index + 4 > features.shape[0]:
        auds = torch.cat([auds, torch.zeros_like(auds[: index + 4 - features.shape[0]])], dim=0)
    return auds


audio_feats = np.load(args.audio_feat)
img_dir = os.path.join(args.dataset, "full_body_img/")
lms_dir = os.path.join(args.dataset, "landmarks/")
len_img = len(os.listdir(img_dir)) - 1
h, w = cv2.imread(img_dir + "0.jpg").shape[:2]
video_writer = cv2.VideoWriter(args.save_path, cv2.VideoWriter_fourcc("M", "J", "P", "G"), 25, (w, h))
net = Model(6, mode).to(device)
net.load_state_dict(torch.load(args.checkpoint, map_location=device))
net.eval()
img_idx, step_stride = 0, 0
for i in range(audio_feats.shape[0]):
    step_stride = -1 if img_idx > len_img - 1 else (1 if img_idx < 1 else step_stride)
    img_idx += step_stride
    img = cv2.imread(img_dir + str(img_idx) + ".jpg")
    lms = np.loadtxt(lms_dir + str(img_idx) + ".lms", dtype=np.float32).astype(np.int32)
    xmin, ymin, xmax = lms[1][0], lms[52][1], lms[31][0]
    ymax = ymin + (xmax - xmin)
    crop_img = cv2.resize(img[ymin:ymax, xmin:xmax], (168, 168), cv2.INTER_AREA)
    crop_h, crop_w = ymax - ymin, xmax - xmin
    crop_img_ori = crop_img.copy()
    img_real_ex = crop_img[4:164, 4:164].copy()
    img_masked = cv2.rectangle(img_real_ex.copy(), (5, 5, 150, 145), (0, 0, 0), -1)
    img_masked = img_masked.transpose(2, 0, 1).astype(np.float32)
    img_real_ex = img_real_ex.transpose(2, 0, 1).astype(np.float32)
    img_real_ex_T = torch.from_numpy(img_real_ex / 255.0).to(device)  # <- fixed
    img_masked_T = torch.from_numpy(img_masked / 255.0).to(device)
    img_concat_T = torch.cat([img_real_ex_T, img_masked_T], axis=0)[None]
    audio_feat = get_audio_features(audio_feats, i).reshape(16, 32, 32)[None].to(device)
    img_concat_T = img_concat_T.to(device)
    with torch.no_grad():
        pred = net(img_concat_T, audio_feat)[0]
    pred = np.array(pred.cpu().numpy().transpose(1, 2, 0) * 255, dtype=np.uint8)
    crop_img_ori[4:164, 4:164] = pred
    img[ymin:ymax, xmin:xmax] = cv2.resize(crop_img_ori, (crop_w, crop_h))
    video_writer.write(img)
video_writer.release()
