"""INTERIM: a LeNet-5 with the canonical weights until probes/training/torch_nets.py lands."""

from __future__ import annotations


def build(model: str):
    import torch
    from torch import nn

    from probes.training import weights

    if model != "lenet":
        raise ValueError(f"interim nets: only lenet, not {model}")

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(400, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, 10)

        def forward(self, x):
            x = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
            x = torch.max_pool2d(torch.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    net = LeNet()
    w = weights.canonical(model)
    net.load_state_dict({k: torch.from_numpy(v) for k, v in w.items()})
    return net, weights.checksum(w)
