# devcheck bug corpus: DC105
# From: https://github.com/sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning/pull/93
# Fixed: the checkpoint is loaded with map_location=str(device), so its
# modules come to the device the script chose, the CPU where there is no GPU.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import json

import torch
import torch.nn.functional as F
import torchvision.transforms as transforms
from PIL import Image

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def caption_image_greedy(encoder, decoder, image_path, word_map, max_len=50):
    img = Image.open(image_path).convert("RGB").resize((256, 256))
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    img = normalize(transforms.ToTensor()(img)).unsqueeze(0).to(device)
    encoder_out = encoder(img)
    encoder_out = encoder_out.view(1, -1, encoder_out.size(-1))
    h, c = decoder.init_hidden_state(encoder_out)
    word = torch.LongTensor([word_map["<start>"]]).to(device)
    seq = []
    for _ in range(max_len):
        awe, _ = decoder.attention(encoder_out, h)
        emb = decoder.embedding(word)
        h, c = decoder.decode_step(torch.cat([emb, awe], dim=1), (h, c))
        word = F.log_softmax(decoder.fc(h), dim=1).argmax(dim=1)
        if word.item() == word_map["<end>"]:
            break
        seq.append(word.item())
    return seq


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Show, Attend, and Tell - Tutorial - Generate Caption")
    parser.add_argument("--img", "-i", help="path to image")
    parser.add_argument("--model", "-m", help="path to model")
    parser.add_argument("--word_map", "-wm", help="path to word map JSON")
    args = parser.parse_args()

    checkpoint = torch.load(args.model, map_location=str(device))  # <- fixed
    decoder = checkpoint["decoder"]
    decoder = decoder.to(device)
    decoder.eval()
    encoder = checkpoint["encoder"]
    encoder = encoder.to(device)
    encoder.eval()

    with open(args.word_map, "r") as j:
        word_map = json.load(j)
    rev_word_map = {v: k for k, v in word_map.items()}
    seq = caption_image_greedy(encoder, decoder, args.img, word_map)
    print(" ".join(rev_word_map[i] for i in seq))
