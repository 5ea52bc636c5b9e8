# devcheck bug corpus: DC101
# From: https://github.com/pengzhendong/streaming-sensevoice/issues/3
# From: https://github.com/pengzhendong/streaming-sensevoice/commit/c077bf1ce37ea6530c84d175f0a02aec8d31d51a
# Streaming SenseVoice: FunASR's AutoModel.build_model puts the model on the
# GPU when one is there, while the streaming script keeps its feature chunk
# in a host buffer made with torch.zeros. inference() made its language,
# event and text-norm query ids with torch.LongTensor(...).to(speech.device),
# that is on the CPU like the chunk, and looked them up in the model's
# embedding on the GPU: "Expected all tensors to be on the same device, but
# found at least two devices, cuda:0 and cpu! (when checking argument for
# argument index in method wrapper_CUDA__index_select)". The fix moves the
# model to a chosen device and the speech and the ids to the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn
from funasr import AutoModel
from modelscope import snapshot_download


class SenseVoiceSmall(nn.Module):
    def __init__(self, vocab_size, input_size=560, hidden=512):
        super().__init__()
        self.lid_dict = {"auto": 0, "zh": 3}
        self.textnorm_dict = {"withitn": 14, "woitn": 15}
        self.embed = nn.Embedding(16, input_size)
        self.encoder = nn.GRU(input_size, hidden, batch_first=True)
        self.ctc_lo = nn.Linear(hidden, vocab_size)

    def inference(self, speech):
        speech = speech[None, :, :]
        textnorm_query = self.embed(
            torch.LongTensor([[self.textnorm_dict["woitn"]]]).to(speech.device)  # <- bug
        ).repeat(speech.size(0), 1, 1)
        language_query = self.embed(
            torch.LongTensor([[self.lid_dict["zh"]]]).to(speech.device)  # <- bug
        ).repeat(speech.size(0), 1, 1)
        event_emo_query = self.embed(
            torch.LongTensor([[1, 2]]).to(speech.device)  # <- bug
        ).repeat(speech.size(0), 1, 1)
        speech = torch.cat((language_query, event_emo_query, textnorm_query, speech), dim=1)
        encoder_out, _ = self.encoder(speech)
        return self.ctc_lo(encoder_out).log_softmax(-1)[0, 4:]


def from_pretrained():
    repo_dir = snapshot_download("iic/SenseVoiceSmall")
    model, kwargs = AutoModel.build_model(model=repo_dir)
    model.eval()
    model.tokenizer = kwargs["tokenizer"]
    return model


def stream(model, frames, chunk_size=10, padding=8):
    chunk_feats = torch.zeros((chunk_size + 2 * padding, 560))  # <- bug
    idx = 0
    for feat in torch.unbind(torch.tensor(frames), dim=0):
        idx += 1
        chunk_feats = torch.roll(chunk_feats, -1, dims=0)
        chunk_feats[-1, :] = feat
        if idx < chunk_size + padding or (idx - padding) % chunk_size != 0:
            continue
        x = model.inference(chunk_feats)[padding:][:chunk_size]
        print(x.argmax(-1).tolist())


if __name__ == "__main__":
    import numpy as np

    stream(from_pretrained(), np.load("feats.npy"))
