# devcheck bug corpus: DC120
# From: https://github.com/salesforce/BLIP/issues/158
# BLIP's retrieval evaluation keeps the ViT features of every image on the
# CPU (image_feat.cpu()) to save GPU memory, then, for each text, takes the
# top-k images from the GPU similarity matrix and indexes the CPU features
# with the GPU top-k indices, which recent torch refuses.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn.functional as F


@torch.no_grad()
def evaluation(model, data_loader, texts, device, k_test=128):
    model.eval()
    text_input = model.tokenizer(texts, padding="max_length", truncation=True, max_length=35,
                                 return_tensors="pt").to(device)
    text_output = model.text_encoder(text_input.input_ids, attention_mask=text_input.attention_mask, mode="text")
    text_embeds = F.normalize(model.text_proj(text_output.last_hidden_state[:, 0, :]))
    text_ids, text_atts = text_input.input_ids, text_input.attention_mask

    image_feats, image_embeds = [], []
    for image, img_id in data_loader:
        image = image.to(device)
        image_feat = model.visual_encoder(image)
        image_embeds.append(F.normalize(model.vision_proj(image_feat[:, 0, :]), dim=-1))
        image_feats.append(image_feat.cpu())
    image_feats = torch.cat(image_feats, dim=0)
    image_embeds = torch.cat(image_embeds, dim=0)

    sims_matrix = (image_embeds @ text_embeds.t()).t()
    score_matrix_t2i = torch.full((len(texts), image_embeds.size(0)), -100.0).to(device)
    for i, sims in enumerate(sims_matrix):
        topk_sim, topk_idx = sims.topk(k=k_test, dim=0)
        encoder_output = image_feats[topk_idx].to(device)  # <- bug
        encoder_att = torch.ones(encoder_output.size()[:-1], dtype=torch.long).to(device)
        output = model.text_encoder(text_ids[i].repeat(k_test, 1),
                                    attention_mask=text_atts[i].repeat(k_test, 1),
                                    encoder_hidden_states=encoder_output,
                                    encoder_attention_mask=encoder_att, return_dict=True)
        score = model.itm_head(output.last_hidden_state[:, 0, :])[:, 1]
        score_matrix_t2i[i, topk_idx] = score + topk_sim
    return score_matrix_t2i.cpu().numpy()


def main(model, test_loader, texts):
    device = torch.device("cuda")
    model = model.to(device)
    return evaluation(model, test_loader, texts, device)
