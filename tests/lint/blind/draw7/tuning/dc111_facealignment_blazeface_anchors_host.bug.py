# devcheck bug corpus: DC111
# From: https://github.com/1adrianb/face-alignment/pull/200
# The BlazeFace detector loads its anchors as a plain tensor attribute on the
# device the network has at that moment (still the CPU), and only then moves
# the network with .to(device): the anchors stay on the CPU and meet the CUDA
# box regressions when the boxes are decoded. The decoded detections are then
# handed to NumPy while still on the GPU.
# Written for devcheck's tests after the thread; not the project's code.
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class BlazeFace(nn.Module):
    def __init__(self, num_anchors=896):
        super().__init__()
        self.num_anchors = num_anchors
        self.x_scale = self.y_scale = self.w_scale = self.h_scale = 128.0
        self.min_score_thresh = 0.75
        self.backbone = nn.Sequential(nn.Conv2d(3, 24, 5, stride=2, padding=2), nn.ReLU(),
                                      nn.Conv2d(24, 88, 3, stride=2, padding=1), nn.ReLU())
        self.classifier_8 = nn.Conv2d(88, 2, 1)
        self.regressor_8 = nn.Conv2d(88, 32, 1)

    def _device(self):
        return self.classifier_8.weight.device

    def load_anchors_from_npy(self, arr):
        self.anchors = torch.tensor(arr, dtype=torch.float32, device=self._device())  # <- bug

    def forward(self, x):
        h = self.backbone(x)
        scores = self.classifier_8(h).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 1)
        boxes = self.regressor_8(h).permute(0, 2, 3, 1).reshape(x.shape[0], -1, 16)
        return boxes[:, : self.num_anchors], scores[:, : self.num_anchors]

    def _decode_boxes(self, raw_boxes, anchors):
        x_center = raw_boxes[..., 0] / self.x_scale * anchors[:, 2] + anchors[:, 0]
        y_center = raw_boxes[..., 1] / self.y_scale * anchors[:, 3] + anchors[:, 1]
        w = raw_boxes[..., 2] / self.w_scale * anchors[:, 2]
        h = raw_boxes[..., 3] / self.h_scale * anchors[:, 3]
        return torch.stack((y_center - h / 2, x_center - w / 2, y_center + h / 2, x_center + w / 2), dim=-1)

    def predict_on_batch(self, x):
        x = torch.from_numpy(x).permute(0, 3, 1, 2).float().to(self._device()) / 127.5 - 1.0
        with torch.no_grad():
            raw_boxes, raw_scores = self(x)
        boxes = self._decode_boxes(raw_boxes, self.anchors)
        scores = raw_scores.sigmoid().squeeze(-1)
        detections = []
        for i in range(raw_boxes.shape[0]):
            mask = scores[i] >= self.min_score_thresh
            detections.append(torch.cat((boxes[i, mask], scores[i, mask].unsqueeze(-1)), dim=-1))  # <- bug
        return detections


class BlazeFaceDetector:
    def __init__(self, device, path_to_detector, path_to_anchor):
        self.device = device
        self.face_detector = BlazeFace()
        self.face_detector.load_state_dict(torch.load(path_to_detector, map_location="cpu"))
        self.face_detector.load_anchors_from_npy(np.load(path_to_anchor))  # <- bug
        self.face_detector.to(device)
        self.face_detector.eval()

    def detect_from_batch(self, images):
        preds = self.face_detector.predict_on_batch(images)
        return [np.concatenate((p[:, 1:2], p[:, 0:1], p[:, 3:4], p[:, 2:3], p[:, 4:]), axis=1) for p in preds]


if __name__ == "__main__":
    detector = BlazeFaceDetector("cuda", "blazeface.pth", "anchors.npy")
    frames = np.random.randint(0, 255, (4, 128, 128, 3)).astype(np.uint8)
    print([b.shape for b in detector.detect_from_batch(frames)])
