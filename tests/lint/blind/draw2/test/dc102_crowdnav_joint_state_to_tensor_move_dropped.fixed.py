# devcheck bug corpus: DC102
# From: https://github.com/ChanganVR/RelationalGraphLearning/issues/2
# From: https://github.com/ChanganVR/RelationalGraphLearning/pull/4
# Fixed as the pull request does it: for cuda:0 the moved tensors are
# assigned (`robot_state_tensor = robot_state_tensor.cuda()`); for any other
# device the old statements stay as they were.
# Written for devcheck's tests after the thread; not the project's code.
import argparse

import torch
import torch.nn as nn


class FullState:
    def __init__(self, px, py, vx, vy, radius, gx, gy, v_pref, theta):
        self.px, self.py, self.vx, self.vy, self.radius = px, py, vx, vy, radius
        self.gx, self.gy, self.v_pref, self.theta = gx, gy, v_pref, theta

    def to_tuple(self):
        return self.px, self.py, self.vx, self.vy, self.radius, self.gx, self.gy, self.v_pref, self.theta


class ObservableState:
    def __init__(self, px, py, vx, vy, radius):
        self.px, self.py, self.vx, self.vy, self.radius = px, py, vx, vy, radius

    def to_tuple(self):
        return self.px, self.py, self.vx, self.vy, self.radius


class JointState:
    def __init__(self, robot_state, human_states):
        self.robot_state = robot_state
        self.human_states = human_states

    def to_tensor(self, add_batch_size=False, device=None):
        robot_state_tensor = torch.Tensor([self.robot_state.to_tuple()])
        human_states_tensor = torch.Tensor([human_state.to_tuple() for human_state in self.human_states])
        if add_batch_size:
            robot_state_tensor = robot_state_tensor.unsqueeze(0)
            human_states_tensor = human_states_tensor.unsqueeze(0)
        if device == torch.device("cuda:0"):  # <- fixed
            robot_state_tensor = robot_state_tensor.cuda()  # <- fixed
            human_states_tensor = human_states_tensor.cuda()  # <- fixed
        elif device is not None:  # <- fixed
            robot_state_tensor.to(device)
            human_states_tensor.to(device)
        return robot_state_tensor, human_states_tensor


class StatePredictor(nn.Module):
    def __init__(self, robot_dim=9, human_dim=5, hidden=32):
        super().__init__()
        self.robot_encoder = nn.Linear(robot_dim, hidden)
        self.human_encoder = nn.Linear(human_dim, hidden)
        self.value = nn.Linear(hidden, 1)

    def forward(self, state, action):
        robot_state, human_states = state
        h = self.robot_encoder(robot_state).mean(1) + self.human_encoder(human_states).mean(1)
        return self.value(torch.relu(h)) + action


class ModelPredictiveRL:
    def __init__(self):
        self.state_predictor = StatePredictor()
        self.model = [self.state_predictor]
        self.device = None

    def set_device(self, device):
        self.device = device
        for model in self.model:
            model.to(device)

    def predict(self, state, action_space):
        best_action, best_value = None, float("-inf")
        for action in action_space:
            state_tensor = state.to_tensor(add_batch_size=True, device=self.device)
            value = self.state_predictor(state_tensor, action).item()
            if value > best_value:
                best_action, best_value = action, value
        return best_action


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", default=False, action="store_true")
    args = parser.parse_args()
    device = torch.device("cuda:0" if torch.cuda.is_available() and args.gpu else "cpu")
    policy = ModelPredictiveRL()
    policy.set_device(device)
    robot = FullState(0.0, -4.0, 0.0, 0.0, 0.3, 0.0, 4.0, 1.0, 0.0)
    humans = [ObservableState(1.0, float(i), 0.0, 0.0, 0.3) for i in range(5)]
    print(policy.predict(JointState(robot, humans), [0.0, 0.5, 1.0]))


if __name__ == "__main__":
    main()
