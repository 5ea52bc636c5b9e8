# devcheck bug corpus: DC109
# From: https://github.com/Linesight-RL/linesight/pull/53
# From: https://github.com/Linesight-RL/linesight/issues/51
# The fix builds the scaler with torch.amp.GradScaler("cuda") and annotates the
# trainer's parameter with torch.amp.GradScaler.
# Written for devcheck's tests after the thread; not the project's code.
import torch
import torch.nn as nn


class IQNNetwork(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=256):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, hidden), nn.LeakyReLU(), nn.Linear(hidden, hidden))
        self.head = nn.Linear(hidden, n_actions)

    def forward(self, obs):
        return self.head(torch.relu(self.body(obs)))


class Trainer:
    def __init__(
        self,
        online_network: IQNNetwork,
        target_network: IQNNetwork,
        optimizer: torch.optim.Optimizer,
        scaler: torch.amp.GradScaler,  # <- fixed
        batch_size: int,
        gamma: float = 0.99,
    ):
        self.online_network = online_network
        self.target_network = target_network
        self.optimizer = optimizer
        self.scaler = scaler
        self.batch_size = batch_size
        self.gamma = gamma

    def train_on_batch(self, obs, actions, rewards, next_obs, done):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.amp.autocast(device_type="cuda", dtype=torch.float16):
            with torch.no_grad():
                next_q = self.target_network(next_obs).max(dim=1).values
                target = rewards + self.gamma * next_q * (1 - done)
            q = self.online_network(obs).gather(1, actions.unsqueeze(1)).squeeze(1)
            total_loss = nn.functional.smooth_l1_loss(q, target)
        self.scaler.scale(total_loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.online_network.parameters(), 30.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return total_loss.detach()


def learner_process_fn(obs_dim, n_actions, batches):
    online_network = IQNNetwork(obs_dim, n_actions).to("cuda")
    target_network = IQNNetwork(obs_dim, n_actions).to("cuda")
    target_network.load_state_dict(online_network.state_dict())
    optimizer1 = torch.optim.RAdam(online_network.parameters(), lr=5e-5, eps=1e-4)
    scaler = torch.amp.GradScaler("cuda")  # <- fixed
    trainer = Trainer(online_network, target_network, optimizer1, scaler, batch_size=512)
    for obs, actions, rewards, next_obs, done in batches:
        trainer.train_on_batch(
            obs.to("cuda"), actions.to("cuda"), rewards.to("cuda"),
            next_obs.to("cuda"), done.to("cuda"),
        )
