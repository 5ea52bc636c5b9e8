# devcheck bug corpus: DC113
# From: https://github.com/ProjectDossier/cruise-screening/pull/100
# Fixed as the pull request does it: the query embedding is copied to the
# CPU before it is turned into NumPy for the faiss search.
# Written for devcheck's tests after the thread; not the project's code.
import faiss
import torch
from transformers import AutoModel, AutoTokenizer


class SemanticSearch:
    def __init__(self, labels, index_path):
        name = "allenai/scibert_scivocab_cased"
        self.model = AutoModel.from_pretrained(name, output_hidden_states=True).eval()
        self.tokenizer = AutoTokenizer.from_pretrained(name, model_max_length=16)
        self.device = "cuda:0" if torch.cuda.is_available() else "cpu"
        self.model = self.model.to(self.device)
        self.labels = labels
        self.index = faiss.read_index(index_path)
        try:
            res = faiss.StandardGpuResources()
            self.index = faiss.index_cpu_to_gpu(res, 0, self.index)
        except AttributeError:
            pass

    def embedding(self, words):
        words = [words] if isinstance(words, str) else words
        marked = ["[CLS] " + w + " [SEP]" for w in words]
        padded = [self.tokenizer.tokenize(m, padding="max_length", truncation=True) for m in marked]
        pieces = [len(self.tokenizer.tokenize(m, truncation=True)) - 1 for m in marked]
        ids = torch.tensor([[self.tokenizer.convert_tokens_to_ids(p) for p in padded]]).squeeze(0)
        with torch.no_grad():
            hidden = self.model(ids.to(self.device))["hidden_states"]
        layers = torch.stack(hidden, dim=0).permute(1, 2, 0, 3)
        out = []
        for tokens, n in zip(layers, pieces):
            summed = tokens[:, -4:].sum(dim=1)
            out.append(summed[1:n].mean(dim=0))
        return torch.stack(out)

    def do_faiss_lookup(self, text):
        vector = self.embedding(text).cpu().detach().numpy().astype("float32")  # <- fixed
        score, index = self.index.search(vector, 1)
        return self.labels[index[0][0]], float(score[0][0])


if __name__ == "__main__":
    labels = [line.strip() for line in open("taxonomy_labels.txt")]
    search = SemanticSearch(labels, "TaxonomyCSOindex.bin")
    print(search.do_faiss_lookup("neural machine translation"))
