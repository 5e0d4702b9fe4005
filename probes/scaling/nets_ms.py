"""INTERIM: a MindSpore LeNet-5 with the canonical weights until probes/training/ms_nets.py lands."""

from __future__ import annotations


def build(model: str):
    import mindspore as ms
    from mindspore import nn, ops

    from probes.training import weights

    if model != "lenet":
        raise ValueError(f"interim nets: only lenet, not {model}")

    class LeNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=True)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=True)
            self.fc1 = nn.Dense(400, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, 10)
            self.relu = nn.ReLU()
            self.pool = nn.MaxPool2d(2, 2)
            self.flatten = nn.Flatten()

        def construct(self, x):
            x = self.pool(self.relu(self.conv1(x)))
            x = self.pool(self.relu(self.conv2(x)))
            x = self.flatten(x)
            return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

    net = LeNet()
    w = weights.canonical(model)
    names = weights.mindspore_names(model)
    ms.load_param_into_net(net, {names[k]: ms.Parameter(ms.Tensor(v), name=names[k]) for k, v in w.items()},
                           strict_load=True)
    _ = ops
    return net, weights.checksum(w)
