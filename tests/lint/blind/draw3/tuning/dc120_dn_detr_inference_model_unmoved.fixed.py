# devcheck bug corpus: DC120
# From: https://github.com/IDEA-Research/DN-DETR/issues/58
# Fixed as answered in the thread: the model and the image are moved to the
# GPU for the forward pass, and the post-processor's target sizes too.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from PIL import Image
from torchvision import transforms as T


def prepare_for_dn(num_patterns, embedweight, num_queries, num_classes, label_enc):
    if num_patterns == 0:
        num_patterns = 1
    indicator0 = torch.zeros([num_queries * num_patterns, 1]).cuda()
    tgt = label_enc(torch.tensor(num_classes).cuda()).repeat(num_queries * num_patterns, 1)
    tgt = torch.cat([tgt, indicator0], dim=1)
    refpoint_emb = embedweight.repeat(num_patterns, 1)
    return tgt, refpoint_emb


class DABDETR(nn.Module):
    def __init__(self, num_classes=91, num_queries=300, hidden_dim=256):
        super().__init__()
        self.num_classes = num_classes
        self.num_queries = num_queries
        self.backbone = nn.Sequential(nn.Conv2d(3, hidden_dim, 16, stride=16), nn.ReLU())
        self.label_enc = nn.Embedding(num_classes + 1, hidden_dim - 1)
        self.refpoint_embed = nn.Embedding(num_queries, 4)
        self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(hidden_dim, 8, batch_first=True), 2)
        self.class_embed = nn.Linear(hidden_dim, num_classes)
        self.bbox_embed = nn.Linear(hidden_dim, 4)

    def forward(self, samples, dn_args):
        memory = self.backbone(samples).flatten(2).transpose(1, 2)
        tgt, refpoints = prepare_for_dn(dn_args, self.refpoint_embed.weight, self.num_queries, self.num_classes, self.label_enc)
        hs = self.decoder(tgt.unsqueeze(0).expand(samples.size(0), -1, -1), memory)
        out = {"pred_logits": self.class_embed(hs), "pred_boxes": (self.bbox_embed(hs) + refpoints).sigmoid()}
        return out, None


class PostProcess(nn.Module):
    @torch.no_grad()
    def forward(self, outputs, target_sizes):
        prob = outputs["pred_logits"].sigmoid()
        scores, labels = prob.max(-1)
        img_h, img_w = target_sizes.unbind(1)
        scale_fct = torch.stack([img_w, img_h, img_w, img_h], dim=1)
        return [{"scores": s, "labels": l, "boxes": b * scale_fct[i]} for i, (s, l, b) in enumerate(zip(scores, labels, outputs["pred_boxes"]))]


model = DABDETR()
postprocessors = {"bbox": PostProcess()}
checkpoint = torch.load("checkpoint_optimized_44.7ap.pth", map_location="cpu")
model.load_state_dict(checkpoint["model"])
model.eval()
transform = T.Compose([T.Resize(800), T.ToTensor(), T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])])
image = transform(Image.open("bus.jpg").convert("RGB"))
output, _ = model.cuda()(image[None].cuda(), 0)  # <- fixed
output = postprocessors["bbox"](output, torch.Tensor([[1.0, 1.0]]).cuda())[0]  # <- fixed
select_mask = output["scores"] > 0.3
print(output["boxes"][select_mask])
