# devcheck bug corpus: DC120
# From: https://github.com/facebookresearch/sam2/issues/489
# From: https://github.com/facebookresearch/sam2/pull/490
# The patch moves the stored pred_masks of a conditioning frame back to the
# inference state's compute device when propagate_in_video reads them, so the
# offloaded masks are on the GPU with the other objects' fresh masks.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyTracker(nn.Module):
    def __init__(self, c=16):
        super().__init__()
        self.backbone = nn.Conv2d(3, c, 3, stride=4, padding=1)
        self.head = nn.Conv2d(c + 1, 1, 3, padding=1)

    def track_step(self, image, prompt_mask):
        feats = self.backbone(image)
        prompt = F.interpolate(prompt_mask, size=feats.shape[-2:])
        return {"pred_masks": self.head(torch.cat([feats, prompt], dim=1))}


class VideoPredictor:
    def __init__(self, model, device):
        self.model = model.to(device).eval()
        self.device = device

    def init_state(self, frames, offload_state_to_cpu=False):
        state = {"images": frames, "device": self.device, "per_obj": {}}
        state["storage_device"] = torch.device("cpu") if offload_state_to_cpu else self.device
        return state

    def _run_frame(self, state, idx, prompt_mask):
        image = state["images"][idx].to(self.device)[None]
        out = self.model.track_step(image, prompt_mask.to(self.device))
        masks_gpu = out["pred_masks"]
        stored = {"pred_masks": masks_gpu.to(state["storage_device"], non_blocking=True)}
        return stored, masks_gpu

    @torch.inference_mode()
    def add_new_mask(self, state, frame_idx, obj_id, mask):
        obj = state["per_obj"].setdefault(obj_id, {"cond": {}, "non_cond": {}, "last": mask[None, None]})
        stored, _ = self._run_frame(state, frame_idx, mask[None, None].float())
        obj["cond"][frame_idx] = stored

    @torch.inference_mode()
    def propagate_in_video(self, state):
        for idx in range(len(state["images"])):
            per_obj = []
            for obj in state["per_obj"].values():
                if idx in obj["cond"]:
                    masks = obj["cond"][idx]["pred_masks"].to(state["device"], non_blocking=True)  # <- fixed
                else:
                    stored, masks = self._run_frame(state, idx, obj["last"].float())
                    obj["non_cond"][idx] = stored
                per_obj.append(masks)
                obj["last"] = masks > 0
            all_masks = torch.cat(per_obj, dim=0) if len(per_obj) > 1 else per_obj[0]
            yield idx, F.interpolate(all_masks.to(state["device"]), scale_factor=4.0, mode="bilinear")


def main():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    predictor = VideoPredictor(TinyTracker(), device)
    frames = [torch.rand(3, 128, 128) for _ in range(8)]
    state = predictor.init_state(frames, offload_state_to_cpu=True)
    predictor.add_new_mask(state, 0, obj_id=1, mask=torch.zeros(128, 128, dtype=torch.bool))
    predictor.add_new_mask(state, 3, obj_id=2, mask=torch.ones(128, 128, dtype=torch.bool))
    for idx, masks in predictor.propagate_in_video(state):
        print(idx, (masks > 0).sum().item())


if __name__ == "__main__":
    main()
