# devcheck bug corpus: DC111
# From: https://github.com/DanielAvdar/tabnet/issues/277
# From: https://github.com/DanielAvdar/tabnet/commit/0f105786b674c74d451f48704a80b3da83156990
# The fix (PR 279, commit 0f10578) registers both group matrices as buffers
# (register_buffer), so they move with the model when .to(device) is called.
# Written for devcheck's tests after the thread; not the project's code.
import torch


def create_group_matrix(list_groups, input_dim):
    if len(list_groups) == 0:
        return torch.eye(input_dim)
    matrix = torch.zeros((len(list_groups), input_dim))
    for g, group in enumerate(list_groups):
        matrix[g, group] = 1 / len(group)
    return matrix


class EmbeddingGenerator(torch.nn.Module):
    def __init__(self, input_dim, group_matrix):
        super().__init__()
        self.skip_embedding = True
        self.post_embed_dim = input_dim
        self.register_buffer("embedding_group_matrix", group_matrix.clone())  # <- fixed

    def forward(self, x):
        return x


class RandomObfuscator(torch.nn.Module):
    def __init__(self, pretraining_ratio, group_matrix):
        super().__init__()
        self.pretraining_ratio = pretraining_ratio
        self.register_buffer("group_matrix", (group_matrix > 0) + 0.0)  # <- fixed
        self.num_groups = group_matrix.shape[0]

    def forward(self, x):
        bs = x.shape[0]
        obfuscated_groups = torch.bernoulli(self.pretraining_ratio * torch.ones((bs, self.num_groups), device=x.device))
        obfuscated_vars = torch.matmul(obfuscated_groups, self.group_matrix)
        masked_input = torch.mul(1 - obfuscated_vars, x)
        return masked_input, obfuscated_groups, obfuscated_vars


class TabNetPretraining(torch.nn.Module):
    def __init__(self, input_dim, pretraining_ratio=0.2, n_d=8, group_matrix=None):
        super().__init__()
        group_matrix = create_group_matrix([], input_dim) if group_matrix is None else group_matrix
        self.embedder = EmbeddingGenerator(input_dim, group_matrix)
        self.masker = RandomObfuscator(pretraining_ratio, group_matrix)
        self.encoder = torch.nn.Sequential(torch.nn.Linear(input_dim, n_d), torch.nn.ReLU())
        self.decoder = torch.nn.Linear(n_d, input_dim)

    def forward(self, x):
        embedded_x = self.embedder(x)
        masked_x, obfuscated_groups, obfuscated_vars = self.masker(embedded_x)
        return self.decoder(self.encoder(masked_x)), embedded_x, obfuscated_vars


if __name__ == "__main__":
    device = "mps" if torch.backends.mps.is_available() else "cpu"
    model = TabNetPretraining(input_dim=16).to(device)
    x = torch.randn(32, 16, device=device)
    reconstruction, embedded_x, obf_vars = model(x)
    loss = ((reconstruction - embedded_x) * obf_vars).pow(2).mean()
    loss.backward()
    print(loss.item())
