"""Time-to-accuracy on real data: LeNet-5 trained on scikit-learn's bundled handwritten digits (or
the user's CIFAR-10 / MNIST files) with the same canonical weights, data order and schedule in
PyTorch (eager, compile) and MindSpore (graph, pynative), each run in its own child process; and
the MindSpore Normalize trap (PyTorch-style 0-1 mean/std on 0-255 input) measured live."""
