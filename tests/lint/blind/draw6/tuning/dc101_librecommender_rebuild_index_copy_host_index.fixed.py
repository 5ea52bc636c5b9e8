# devcheck bug corpus: DC101
# From: https://github.com/massquantity/LibRecommender/pull/222
# Fixed: the row index for index_copy_ is made on the model's device.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class TwoTower(nn.Module):
    def __init__(self, n_users, n_items, embed_size=16):
        super().__init__()
        self.user_embed = nn.Embedding(n_users, embed_size)
        self.item_embed = nn.Embedding(n_items, embed_size)

    def forward(self, users, items):
        return (self.user_embed(users) * self.item_embed(items)).sum(-1)


class Recommender:
    def __init__(self, n_users, n_items, old_n_users, old_n_items, device):
        self.n_users, self.n_items = n_users, n_items
        self.old_n_users, self.old_n_items = old_n_users, old_n_items
        self.device = device
        self.torch_model = TwoTower(n_users, n_items).to(device)

    def save(self, path):
        torch.save(self.torch_model.state_dict(), path)

    @torch.no_grad()
    def rebuild(self, path):
        state = torch.load(path, map_location=self.device, weights_only=True)
        user_params = {k: state.pop(k) for k in list(state) if "user" in k}
        item_params = {k: state.pop(k) for k in list(state) if "item" in k}
        self.torch_model.load_state_dict(state, strict=False)
        for name, param in self.torch_model.named_parameters():
            if name in user_params:
                index = torch.arange(self.old_n_users, device=self.device)  # <- fixed
                param.index_copy_(0, index, user_params[name])  # <- fixed
            elif name in item_params:
                index = torch.arange(self.old_n_items, device=self.device)  # <- fixed
                param.index_copy_(0, index, item_params[name])  # <- fixed


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
old = Recommender(100, 50, 100, 50, device)
old.save("old_model.pt")
new = Recommender(120, 60, 100, 50, device)
new.rebuild("old_model.pt")
print(new.torch_model(torch.tensor([0, 119], device=device), torch.tensor([3, 59], device=device)))
