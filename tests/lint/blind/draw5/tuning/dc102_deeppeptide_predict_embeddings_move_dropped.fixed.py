# devcheck bug corpus: DC102
# From: https://github.com/fteufel/DeepPeptide/issues/4
# From: https://github.com/fteufel/DeepPeptide/commit/2657f5dca38e6417c65da5913c1974ed932746e3
# The fix assigns the moved copies (embeddings = embeddings.to(device),
# mask = mask.to(device)), moves the ensemble CRF to the device after
# building it, and moves the byte mask given to its decode.
# Written for devcheck's tests after the thread; not the project's code.
import argparse
import torch
import torch.nn as nn


class EnsembleCRF(nn.Module):
    def __init__(self, transitions):
        super().__init__()
        self.transitions = nn.Parameter(transitions)

    def decode(self, emissions, mask):
        score = emissions[:, 0]
        history = []
        for t in range(1, emissions.size(1)):
            best, idx = (score.unsqueeze(2) + self.transitions + emissions[:, t].unsqueeze(1)).max(dim=1)
            score = torch.where(mask[:, t].bool().unsqueeze(1), best, score)
            history.append(idx)
        return score.argmax(dim=1), history


class PeptideTagger(nn.Module):
    def __init__(self, embed_dim=64, n_filters=32, num_states=5):
        super().__init__()
        self.conv = nn.Conv1d(embed_dim, n_filters, 3, padding=1)
        self.lstm = nn.LSTM(n_filters, n_filters, batch_first=True, bidirectional=True)
        self.to_emissions = nn.Linear(2 * n_filters, num_states)
        self.crf = EnsembleCRF(torch.zeros(num_states, num_states))

    def feature_extractor(self, embeddings, mask):
        out = torch.relu(self.conv(embeddings)).permute(0, 2, 1)
        out, _ = self.lstm(out)
        return out * mask.unsqueeze(-1)

    def features_to_emissions(self, features):
        return self.to_emissions(features)


def combine_crf(models):
    transitions = torch.stack([m.crf.transitions.data for m in models]).mean(dim=0)
    return EnsembleCRF(transitions)


def embed(seqs, dim=64):
    return [torch.randn(len(s), dim) for s in seqs]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch_size", type=int, default=4)
    args = parser.parse_args()
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    seqs = ["MKTAYIAKQR", "GLFDIVKKVV", "MSSHLLQ", "ACDEFGHIKLMN"]
    models = [PeptideTagger() for _ in range(3)]
    crf = combine_crf(models)
    crf.to(device)  # <- fixed
    with torch.no_grad():
        for start in range(0, len(seqs), args.batch_size):
            batch = seqs[start:start + args.batch_size]
            embeddings = nn.utils.rnn.pad_sequence(embed(batch), batch_first=True)
            mask = nn.utils.rnn.pad_sequence([torch.ones(len(s)) for s in batch], batch_first=True)
            embeddings = embeddings.to(device)  # <- fixed
            mask = mask.to(device)  # <- fixed
            batch_emissions = []
            for model in models:
                model.to(device)
                model.eval()
                features = model.feature_extractor(embeddings.permute(0, 2, 1), mask)
                emissions = model.features_to_emissions(features)
                batch_emissions.append(emissions.cpu())
            batch_emissions = torch.stack(batch_emissions).mean(dim=0)
            paths, _ = crf.decode(batch_emissions.to(device), mask.byte().to(device))  # <- fixed
            print(paths.tolist())


if __name__ == "__main__":
    main()
