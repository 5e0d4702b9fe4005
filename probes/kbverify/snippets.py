"""Specs for the mapped APIs that are not one call on a tensor: optimizers (one step on the same
weights and gradient), learning-rate schedules (the rates they give), datasets and transforms (what they
yield), initializers (the spread they draw), dtypes (a cast), autograd, hooks, checkpoints, compilation.
Standard library only (both workers read it).

Each is a `snippet`: a few lines per side run with `target` (the looked-up API), the framework (`ms` or
`torch`), `np`, `data` (the numpy inputs) and every input as a tensor bound; the result is left in `out`.
Where the PyTorch counterpart is not installed here (torchvision, transformers) or cannot run on one CPU
process, the torch side computes the reference the PyTorch call documents (`torch` names the module).
APIs that need a launched job (communication) are `launch_only`: looked up, not run, and said why.

Tolerances come from the arithmetic: float32 element-wise results within 1e-5 (a few roundings of
values of order 1, eps 1.2e-7); accumulations over a few terms 1e-4; a random draw's spread within 4
standard errors of the difference of two sample standard deviations (derived beside each); bf16 casts
within one bf16 ulp (2^-8 relative) of values below 4, f16 one f16 ulp (2^-11).
"""

from __future__ import annotations

S = "values"
SHAPE = "shape"


def snip(ms, torch, ms_code, torch_code, compare=S, tol=1e-5):
    return {
        "call": "snippet",
        "ms": ms,
        "torch": torch,
        "ms_code": ms_code,
        "torch_code": torch_code,
        "args": [],
        "kwargs": {},
        "torch_args": [],
        "torch_kwargs": {},
        "compare": compare,
        "tol": tol,
    }


def launch_only(ms, torch, why):
    return {"call": "launch_only", "ms": ms, "torch": torch, "why": why, "compare": S, "tol": 0.0}


# One optimizer step from the same weights w and gradient g (lr 0.1, each framework's other defaults).
_MS_STEP = (
    "p = ms.Parameter(ms.Tensor(data['w']), name='w')\nopt = target([p], {kw})\nopt((ms.Tensor(data['g']),))\nout = p\n"
)
_TORCH_STEP = (
    "p = torch.nn.Parameter(torch.from_numpy(data['w'].copy()))\nopt = target([p], {kw})\n"
    "p.grad = torch.from_numpy(data['g'].copy())\nopt.step()\nout = p.detach()\n"
)


def _step(ms, torch, ms_kw="learning_rate=0.1", torch_kw="lr=0.1"):
    return snip(ms, torch, _MS_STEP.format(kw=ms_kw), _TORCH_STEP.format(kw=torch_kw))


# An initializer's draw: its standard deviation over a 64 x 32 weight (fan_in 32, fan_out 64).
_MS_INIT = "from mindspore.common.initializer import initializer\nt = initializer(target({a}), [64, 32], ms.float32)\nout = [float(t.asnumpy().std())]\n"
_TORCH_INIT = "t = torch.empty(64, 32)\ntarget(t{a})\nout = [float(t.std(unbiased=False))]\n"


def _init(ms, torch, ms_args, torch_args, tol):
    return snip(ms, torch, _MS_INIT.format(a=ms_args), _TORCH_INIT.format(a=torch_args), tol=tol)


# A cast of x to a dtype and back to float32 (complex: its real part), on both sides.
def _cast(ms, torch, tol=0.0):
    back = "ms.ops.real(t)" if "complex" in ms else "t"
    torch_back = "t.real" if "complex" in torch else "t"
    return snip(
        ms,
        torch,
        f"t = ms.Tensor(data['x']).astype(target)\nout = {back}.astype(ms.float32)\n",
        f"t = torch.from_numpy(data['x'].copy()).to(target)\nout = {torch_back}.to(torch.float32)\n",
        tol=tol,
    )


# Dataset pipelines: the batches they yield, as float arrays.
_ITER = "\nout = [np.asarray(r[0], dtype=np.float32) for r in ds.create_tuple_iterator(output_numpy=True)]\n"
_LABELS_FLOAT = "torch.from_numpy(data['labels'].astype(np.float32))"

# Two 28 x 28 MNIST images and labels in idx format, the same bytes on both sides.
_IDX = (
    "import os, shutil, struct, tempfile\nrng = np.random.default_rng(1)\n"
    "imgs = rng.integers(0, 256, (2, 28, 28), dtype=np.uint8)\nlabels = np.array([7, 3], dtype=np.uint8)\n"
    "d = tempfile.mkdtemp()\n"
    "open(os.path.join(d, 'train-images-idx3-ubyte'), 'wb').write(struct.pack('>iiii', 2051, 2, 28, 28) + imgs.tobytes())\n"
    "open(os.path.join(d, 'train-labels-idx1-ubyte'), 'wb').write(struct.pack('>ii', 2049, 2) + labels.tobytes())\n"
)
# Two CIFAR-10 records (label byte + CHW image) at the head of a test batch file; the reader wants the
# format's 10,000 records per file, so the rest are zeros (30 MB, in a temporary folder, removed after).
_CIFAR = (
    "import os, shutil, tempfile\nrng = np.random.default_rng(2)\n"
    "imgs = rng.integers(0, 256, (2, 3, 32, 32), dtype=np.uint8)\nlabels = np.array([4, 9], dtype=np.uint8)\n"
    "d = tempfile.mkdtemp()\nrecs = b''.join(bytes([labels[i]]) + imgs[i].tobytes() for i in range(2))\n"
    "open(os.path.join(d, 'test_batch.bin'), 'wb').write(recs + bytes(3073 * 9998))\n"
)

_COMM = "needs a job launched by msrun (a communication group); not run on one process"

SNIPPETS: dict[str, dict] = {
    # --- cells and layers ------------------------------------------------------------------------
    "mindspore.nn.Dropout": snip(
        "mindspore.nn.Dropout",
        "torch.nn.Dropout",
        "net = target(p=0.5)\nnet.set_train(False)\nout = net(x)\n",
        "net = target(p=0.5)\nnet.eval()\nout = net(x)\n",
    ),
    "mindspore.nn.SequentialCell": snip(
        "mindspore.nn.SequentialCell",
        "torch.nn.Sequential",
        "out = target([ms.nn.ReLU(), ms.nn.Tanh()])(x)\n",
        "out = target(torch.nn.ReLU(), torch.nn.Tanh())(x)\n",
    ),
    "mindspore.nn.CellList": snip(
        "mindspore.nn.CellList",
        "torch.nn.ModuleList",
        "cl = target([ms.nn.ReLU(), ms.nn.Tanh()])\nout = cl[1](cl[0](x))\n",
        "cl = target([torch.nn.ReLU(), torch.nn.Tanh()])\nout = cl[1](cl[0](x))\n",
    ),
    "mindspore.nn.CellDict": snip(
        "mindspore.nn.CellDict",
        "torch.nn.ModuleDict",
        "out = target({'act': ms.nn.Tanh()})['act'](x)\n",
        "out = target({'act': torch.nn.Tanh()})['act'](x)\n",
    ),
    # nn.Cell with a custom bprop is what torch.autograd.Function and nn.Module map to: the gradient
    # must be the hand-written one (3 everywhere), not the derivative of construct (2).
    "mindspore.nn.Cell": snip(
        "mindspore.nn.Cell",
        "torch.autograd.Function",
        "class F(target):\n    def construct(self, a):\n        return a * 2\n"
        "    def bprop(self, a, out, dout):\n        return (dout * 3,)\n"
        "out = ms.grad(F())(x)\n",
        "class F(target):\n    @staticmethod\n    def forward(ctx, a):\n        return a * 2\n"
        "    @staticmethod\n    def backward(ctx, g):\n        return g * 3\n"
        "t = x.clone().requires_grad_()\nF.apply(t).sum().backward()\nout = t.grad\n",
    ),
    "mindspore.nn.MultiheadAttention": snip(
        "mindspore.nn.MultiheadAttention",
        "torch.nn.MultiheadAttention",
        "out = target(4, 2, batch_first=True)(seq, seq, seq)[0]\n",
        "out = target(4, 2, batch_first=True)(seq, seq, seq)[0]\n",
        compare=SHAPE,
    ),
    "mindspore.nn.Softmax": snip(
        "mindspore.nn.Softmax", "torch.nn.Softmax", "out = target(axis=-1)(x)\n", "out = target(dim=-1)(x)\n"
    ),
    "mindspore.nn.CrossEntropyLoss": snip(
        "mindspore.nn.CrossEntropyLoss",
        "torch.nn.CrossEntropyLoss",
        "out = target()(x, targets.astype(ms.int32))\n",
        "out = target()(x, targets)\n",
    ),
    "mindspore.nn.BCELoss": snip(
        "mindspore.nn.BCELoss",
        "torch.nn.BCELoss",
        "out = target(reduction='mean')(ms.ops.sigmoid(x), prob)\n",
        "out = target()(torch.sigmoid(x), prob)\n",
    ),
    "mindspore.nn.NLLLoss": snip(
        "mindspore.nn.NLLLoss",
        "torch.nn.NLLLoss",
        "out = target()(ms.ops.log_softmax(x, -1), targets.astype(ms.int32))\n",
        "out = target()(torch.log_softmax(x, -1), targets)\n",
    ),
    "mindspore.nn.LSTM": snip(
        "mindspore.nn.LSTM",
        "torch.nn.LSTM",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.GRU": snip(
        "mindspore.nn.GRU",
        "torch.nn.GRU",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.RNN": snip(
        "mindspore.nn.RNN",
        "torch.nn.RNN",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        "out = target(3, 4, batch_first=True)(seqt)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.TransformerEncoderLayer": snip(
        "mindspore.nn.TransformerEncoderLayer",
        "torch.nn.TransformerEncoderLayer",
        "out = target(4, 2, dim_feedforward=8, batch_first=True)(seq)\n",
        "out = target(4, 2, dim_feedforward=8, batch_first=True)(seq)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.TransformerEncoder": snip(
        "mindspore.nn.TransformerEncoder",
        "torch.nn.TransformerEncoder",
        "layer = ms.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)\n"
        "out = target(layer, 2)(seq)\n",
        "layer = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, batch_first=True)\n"
        "out = target(layer, 2, enable_nested_tensor=False)(seq)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.TransformerDecoder": snip(
        "mindspore.nn.TransformerDecoder",
        "torch.nn.TransformerDecoder",
        "layer = ms.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, batch_first=True)\n"
        "out = target(layer, 2)(seq, seq)\n",
        "layer = torch.nn.TransformerDecoderLayer(4, 2, dim_feedforward=8, batch_first=True)\n"
        "out = target(layer, 2)(seq, seq)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.Conv2dTranspose": snip(
        "mindspore.nn.Conv2dTranspose",
        "torch.nn.ConvTranspose2d",
        "out = target(2, 3, 3, pad_mode='valid')(img)\n",
        "out = target(2, 3, 3)(img)\n",
        compare=SHAPE,
    ),
    "mindspore.nn.InstanceNorm1d": snip(
        "mindspore.nn.InstanceNorm1d", "torch.nn.InstanceNorm1d", "out = target(3)(seqc)\n", "out = target(3)(seqc)\n"
    ),
    "mindspore.nn.InstanceNorm3d": snip(
        "mindspore.nn.InstanceNorm3d", "torch.nn.InstanceNorm3d", "out = target(2)(vol)\n", "out = target(2)(vol)\n"
    ),
    "mindspore.nn.MaxPool3d": snip(
        "mindspore.nn.MaxPool3d",
        "torch.nn.MaxPool3d",
        "out = target(kernel_size=2, stride=2)(vol)\n",
        "out = target(kernel_size=2, stride=2)(vol)\n",
    ),
    "mindspore.mint.nn.BatchNorm3d": snip(
        "mindspore.mint.nn.BatchNorm3d",
        "torch.nn.BatchNorm3d",
        "out = target(2)(vol)\n",
        "out = target(2)(vol)\n",
        tol=1e-4,
    ),
    "mindspore.mint.nn.AvgPool1d": snip(
        "mindspore.mint.nn.AvgPool1d", "torch.nn.AvgPool1d", "out = target(2)(seq)\n", "out = target(2)(seq)\n"
    ),
    "mindspore.mint.nn.Conv3d": snip(
        "mindspore.mint.nn.Conv3d",
        "torch.nn.Conv3d",
        "out = target(2, 3, 1)(vol)\n",
        "out = target(2, 3, 1)(vol)\n",
        compare=SHAPE,
    ),
    "mindspore.mint.nn.Unfold": snip(
        "mindspore.mint.nn.Unfold",
        "torch.nn.Unfold",
        "out = target(kernel_size=2)(img)\n",
        "out = target(kernel_size=2)(img)\n",
    ),
    "mindspore.nn.SyncBatchNorm": snip(
        "mindspore.nn.SyncBatchNorm",
        "torch.nn.SyncBatchNorm",
        "net = target(2)\nnet.set_train(False)\nout = net(img)\n",
        "net = target(2)\nnet.eval()\nout = net(img)\n",
        tol=1e-4,
    ),
    "mindspore.nn.Cell.recompute": snip(
        "mindspore.nn.Cell.recompute",
        "torch.utils.checkpoint.checkpoint",
        "net = ms.nn.Dense(3, 4)\nnet.recompute()\nout = net(x)\n",
        "lin = torch.nn.Linear(3, 4)\nout = target(lin, x, use_reentrant=False)\n",
        compare=SHAPE,
    ),
    # --- functional ------------------------------------------------------------------------------
    "mindspore.ops.dropout": snip(
        "mindspore.ops.dropout",
        "torch.nn.functional.dropout",
        "out = target(x, p=0.5, training=False)\n",
        "out = target(x, p=0.5, training=False)\n",
    ),
    "mindspore.ops.max": snip(
        "mindspore.ops.max", "torch.max", "out = list(target(x, axis=1))\n", "out = list(target(x, dim=1))\n"
    ),
    "mindspore.ops.unique": snip(
        "mindspore.ops.unique", "torch.unique", "out = target(labels)[0]\n", "out = target(labels)\n"
    ),
    "mindspore.ops.randn": snip(
        "mindspore.ops.randn", "torch.randn", "out = target(2, 3)\n", "out = target(2, 3)\n", compare=SHAPE
    ),
    "mindspore.ops.rand": snip(
        "mindspore.ops.rand", "torch.rand", "out = target(2, 3)\n", "out = target(2, 3)\n", compare=SHAPE
    ),
    "mindspore.mint.empty": snip(
        "mindspore.mint.empty", "torch.empty", "out = target(2, 3)\n", "out = target(2, 3)\n", compare=SHAPE
    ),
    "mindspore.mint.randint": snip(
        "mindspore.mint.randint",
        "torch.randint",
        "out = target(0, 5, (3,))\n",
        "out = target(0, 5, (3,))\n",
        compare=SHAPE,
    ),
    # a permutation: sorted, it is 0..n-1 on both sides
    "mindspore.mint.randperm": snip(
        "mindspore.mint.randperm",
        "torch.randperm",
        "out = ms.ops.sort(target(5).astype(ms.float32))[0]\n",
        "out = torch.sort(target(5).float()).values\n",
    ),
    "mindspore.mint.multinomial": snip(
        "mindspore.mint.multinomial",
        "torch.multinomial",
        "out = target(pos, 2)\n",
        "out = target(pos, 2)\n",
        compare=SHAPE,
    ),
    "mindspore.mint.normal": snip(
        "mindspore.mint.normal",
        "torch.normal",
        "out = target(0.0, 1.0, (2, 3))\n",
        "out = target(0.0, 1.0, (2, 3))\n",
        compare=SHAPE,
    ),
    "mindspore.mint.nn.functional.grid_sample": snip(
        "mindspore.mint.nn.functional.grid_sample",
        "torch.nn.functional.grid_sample",
        "out = target(img, grid, align_corners=False)\n",
        "out = target(img, grid, align_corners=False)\n",
    ),
    "mindspore.mint.nn.functional.batch_norm": snip(
        "mindspore.mint.nn.functional.batch_norm",
        "torch.nn.functional.batch_norm",
        "out = target(img, bn_mean, bn_var)\n",
        "out = target(img, bn_mean, bn_var)\n",
    ),
    "mindspore.ops.rms_norm": snip(
        "mindspore.ops.rms_norm",
        "torch.nn.functional.rms_norm",
        "out = target(x, ms.Tensor(np.ones(3, np.float32)), 1e-6)[0]\n",
        "out = target(x, [3], torch.ones(3), 1e-6)\n",
    ),
    "mindspore.mint.linalg": snip(
        "mindspore.mint.linalg", "torch.linalg", "out = target.norm(x)\n", "out = target.norm(x)\n"
    ),
    "mindspore.ops.affine_grid": snip(
        "mindspore.ops.affine_grid",
        "torch.nn.functional.affine_grid",
        "out = target(theta, (1, 1, 2, 2), align_corners=False)\n",
        "out = target(theta, [1, 1, 2, 2], align_corners=False)\n",
    ),
    "mindspore.mint.nn.functional.kl_div": snip(
        "mindspore.mint.nn.functional.kl_div",
        "torch.nn.functional.kl_div",
        "out = target(x, pos, reduction='mean')\n",
        "out = target(x, pos, reduction='mean')\n",
    ),
    "mindspore.ops.cartesian_prod": snip(
        "mindspore.ops.cartesian_prod", "torch.cartesian_prod", "out = target(v, v)\n", "out = target(v, v)\n"
    ),
    "mindspore.ops.vmap": snip(
        "mindspore.ops.vmap",
        "torch.vmap",
        "def f(a):\n    return (a * a).sum()\nout = target(f)(x)\n",
        "def f(a):\n    return (a * a).sum()\nout = target(f)(x)\n",
    ),
    "mindspore.ops.bucketize": snip(
        "mindspore.ops.bucketize",
        "torch.bucketize",
        "out = target(x, [-0.5, 0.5])\n",
        "out = target(x, torch.tensor([-0.5, 0.5]))\n",
    ),
    "mindspore.ops.cosine_similarity": snip(
        "mindspore.ops.cosine_similarity",
        "torch.nn.functional.cosine_similarity",
        "out = target(x, y, dim=1)\n",
        "out = target(x, y, dim=1)\n",
    ),
    "mindspore.mint.nn.functional.unfold": snip(
        "mindspore.mint.nn.functional.unfold",
        "torch.nn.functional.unfold",
        "out = target(img, 2)\n",
        "out = target(img, 2)\n",
    ),
    "mindspore.mint.nn.functional.fold": snip(
        "mindspore.mint.nn.functional.fold",
        "torch.nn.functional.fold",
        "cols = ms.mint.nn.functional.unfold(img, 2)\nout = target(cols, 4, 2)\n",
        "cols = torch.nn.functional.unfold(img, 2)\nout = target(cols, 4, 2)\n",
        tol=1e-4,
    ),
    "mindspore.mint.nn.functional.conv_transpose2d": snip(
        "mindspore.mint.nn.functional.conv_transpose2d",
        "torch.nn.functional.conv_transpose2d",
        "out = target(img, kernel_t)\n",
        "out = target(img, kernel_t)\n",
        tol=1e-4,
    ),
    "mindspore.mint.real": snip(
        "mindspore.mint.real",
        "torch.real",
        "out = target(ms.ops.Complex()(x, y))\n",
        "out = target(torch.complex(x, y))\n",
    ),
    "mindspore.ops.view_as_real": snip(
        "mindspore.ops.view_as_real",
        "torch.view_as_real",
        "out = target(ms.ops.Complex()(x, y))\n",
        "out = target(torch.complex(x, y))\n",
    ),
    "mindspore.mint.histc": snip(
        "mindspore.mint.histc",
        "torch.histc",
        "out = target(x, bins=4, min=-2.0, max=2.0)\n",
        "out = target(x, bins=4, min=-2.0, max=2.0)\n",
    ),
    "mindspore.ops.flash_attention_score": snip(
        "mindspore.ops.flash_attention_score",
        "torch.nn.functional.scaled_dot_product_attention",
        "q = seq.astype(ms.float16)\nout = target(q, q, q, head_num=2, input_layout='BSH').astype(ms.float32)\n",
        "q = seq.view(2, 3, 2, 2).transpose(1, 2)\nout = target(q, q, q).transpose(1, 2).reshape(2, 3, 4)\n",
        tol=2e-3,  # float16 inputs: 2^-11 relative on values of order 1, a few roundings
    ),
    "mindspore.ops.NMSWithMask": snip(
        "mindspore.ops.NMSWithMask",
        "torch",  # torchvision.ops.nms is not installed here: its documented result
        "boxes = ms.Tensor(np.array([[0, 0, 1, 1, 0.9], [0, 0, 1, 1, 0.8], [2, 2, 3, 3, 0.7]], np.float32))\n"
        "_, idx, keep = target(0.5)(boxes)\nout = idx.asnumpy()[keep.asnumpy()].astype(np.float32)\n",
        "out = torch.tensor([0.0, 2.0])  # the second box overlaps the first (IoU 1 > 0.5)\n",
    ),
    # --- tensors and dtypes ----------------------------------------------------------------------
    "mindspore.Tensor": snip(
        "mindspore.Tensor",
        "torch.tensor",
        "out = target([[1.0, 2.5], [3.0, -1.0]])\n",
        "out = target([[1.0, 2.5], [3.0, -1.0]])\n",
    ),
    "mindspore.from_numpy": snip(
        "mindspore.from_numpy", "torch.from_numpy", "out = target(data['x'])\n", "out = target(data['x'])\n"
    ),
    "mindspore.Tensor.astype": snip(
        "mindspore.Tensor.astype",
        "torch.Tensor.to",
        "out = target(x, ms.int32)\n",
        "out = x.to(torch.int32)\n",
    ),
    "mindspore.float32": _cast("mindspore.float32", "torch.float32"),
    "mindspore.float64": _cast("mindspore.float64", "torch.float64"),
    "mindspore.float16": _cast("mindspore.float16", "torch.float16", tol=2e-3),  # 2^-11 x values below 4
    "mindspore.bfloat16": _cast("mindspore.bfloat16", "torch.bfloat16", tol=1.6e-2),  # 2^-8 x values below 4
    "mindspore.int64": _cast("mindspore.int64", "torch.int64"),
    "mindspore.int32": _cast("mindspore.int32", "torch.int32"),
    "mindspore.int8": _cast("mindspore.int8", "torch.int8"),
    "mindspore.uint8": snip(  # negative floats to uint8 are undefined in C: cast |x| on both sides
        "mindspore.uint8",
        "torch.uint8",
        "out = ms.Tensor(np.abs(data['x']) * 10).astype(target).astype(ms.float32)\n",
        "out = torch.from_numpy(np.abs(data['x']) * 10).to(target).to(torch.float32)\n",
    ),
    "mindspore.bool_": _cast("mindspore.bool_", "torch.bool"),
    "mindspore.complex64": _cast("mindspore.complex64", "torch.complex64"),
    # --- autograd, hooks, in-place assignment, clipping ------------------------------------------
    "mindspore.value_and_grad": snip(
        "mindspore.value_and_grad",
        "torch.Tensor.backward",
        "out = list(target(lambda a: (a * a).sum())(x))\n",
        "t = x.clone().requires_grad_()\nloss = (t * t).sum()\nloss.backward()\nout = [loss.detach(), t.grad]\n",
    ),
    "mindspore.Tensor.register_hook": snip(
        "mindspore.Tensor.register_hook",
        "torch.Tensor.register_hook",
        "def f(a):\n    a.register_hook(lambda g: g * 3)\n    return (a * 2).sum()\nout = ms.grad(f)(x)\n",
        "t = x.clone().requires_grad_()\nt.register_hook(lambda g: g * 3)\n(t * 2).sum().backward()\nout = t.grad\n",
    ),
    "mindspore.nn.Cell.register_forward_hook": snip(
        "mindspore.nn.Cell.register_forward_hook",
        "torch.nn.Module.register_forward_hook",
        "seen = []\nnet = ms.nn.Tanh()\nnet.register_forward_hook(lambda c, i, o: seen.append(o))\nnet(x)\nout = seen[0]\n",
        "seen = []\nnet = torch.nn.Tanh()\nnet.register_forward_hook(lambda m, i, o: seen.append(o))\nnet(x)\n"
        "out = seen[0]\n",
    ),
    "mindspore.nn.Cell.register_backward_hook": snip(
        "mindspore.nn.Cell.register_backward_hook",
        "torch.nn.Module.register_full_backward_hook",
        "seen = []\nnet = ms.nn.Tanh()\nnet.register_backward_hook(lambda c, gi, go: seen.append(gi[0]))\n"
        "ms.grad(net)(x)\nout = seen[0]\n",
        "seen = []\nnet = torch.nn.Tanh()\nnet.register_full_backward_hook(lambda m, gi, go: seen.append(gi[0]))\n"
        "t = x.clone().requires_grad_()\nnet(t).sum().backward()\nout = seen[0]\n",
    ),
    "mindspore.ops.assign": snip(
        "mindspore.ops.assign",
        "torch.Tensor.copy_",
        "p = ms.Parameter(ms.Tensor(data['x']), name='p')\ntarget(p, y)\nout = p\n",
        "t = x.clone()\nt.copy_(y)\nout = t\n",
    ),
    "mindspore.ops.clip_by_global_norm": snip(
        "mindspore.ops.clip_by_global_norm",
        "torch.nn.utils.clip_grad_norm_",
        "out = list(target((x, y), 1.0))\n",
        "ps = [torch.nn.Parameter(x.clone()), torch.nn.Parameter(y.clone())]\n"
        "ps[0].grad, ps[1].grad = x.clone(), y.clone()\ntarget(ps, 1.0)\nout = [p.grad for p in ps]\n",
    ),
    "mindspore.ops.Custom": snip(
        "mindspore.ops.Custom",
        "torch.library.custom_op",
        "f = target(lambda a: a * 2, out_shape=lambda s: s, out_dtype=lambda t: t, func_type='pyfunc')\nout = f(x)\n",
        "@target('kbverify::double', mutates_args=())\ndef double(a: torch.Tensor) -> torch.Tensor:\n"
        "    return a * 2\nout = double(x)\n",
    ),
    "mindspore.jit": snip(
        "mindspore.jit",
        "torch.jit.trace",
        "def f(a):\n    return ms.ops.relu(a) * 2 + 1\nout = target(f)(x)\n",
        "def f(a):\n    return torch.relu(a) * 2 + 1\nout = target(f, (x,))(x)\n",
    ),
    # --- optimizers: one step from the same w and g ----------------------------------------------
    "mindspore.nn.SGD": _step("mindspore.nn.SGD", "torch.optim.SGD"),
    "mindspore.nn.Adam": _step("mindspore.nn.Adam", "torch.optim.Adam"),
    "mindspore.nn.AdamWeightDecay": _step("mindspore.nn.AdamWeightDecay", "torch.optim.AdamW"),
    "mindspore.nn.RMSProp": _step("mindspore.nn.RMSProp", "torch.optim.RMSprop"),
    "mindspore.nn.Adagrad": _step("mindspore.nn.Adagrad", "torch.optim.Adagrad"),
    "mindspore.nn.Optimizer": snip(
        "mindspore.nn.Optimizer",
        "torch.optim.Optimizer",
        "out = [float(issubclass(ms.nn.SGD, target))]\n",
        "out = [float(issubclass(torch.optim.SGD, target))]\n",
    ),
    # --- learning-rate schedules: the rates of 6 steps --------------------------------------------
    "mindspore.nn.piecewise_constant_lr": snip(
        "mindspore.nn.piecewise_constant_lr",
        "torch.optim.lr_scheduler.StepLR",
        "out = target([2, 4, 6], [0.1, 0.01, 0.001])\n",
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)\nsch = target(opt, step_size=2, gamma=0.1)\n"
        "out = []\nfor _ in range(6):\n    out.append(opt.param_groups[0]['lr'])\n    opt.step()\n    sch.step()\n",
        tol=1e-9,
    ),
    "mindspore.nn.cosine_decay_lr": snip(
        "mindspore.nn.cosine_decay_lr",
        "torch.optim.lr_scheduler.CosineAnnealingLR",
        "out = target(0.0, 0.1, 6, 1, 6)\n",
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)\nsch = target(opt, T_max=6)\n"
        "out = []\nfor _ in range(6):\n    out.append(opt.param_groups[0]['lr'])\n    opt.step()\n    sch.step()\n",
        tol=1e-6,
    ),
    # a LearningRateSchedule subclass is how LambdaLR / OneCycleLR move: lr 0.1 x 0.5^step for 3 steps
    "mindspore.nn.learning_rate_schedule.LearningRateSchedule": snip(
        "mindspore.nn.learning_rate_schedule.LearningRateSchedule",
        "torch.optim.lr_scheduler.LambdaLR",
        "class Half(target):\n    def construct(self, step):\n"
        "        return 0.1 * ms.ops.pow(0.5, step.astype(ms.float32))\n"
        "out = [Half()(ms.Tensor(i, ms.int32)) for i in range(3)]\n",
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)\nsch = target(opt, lambda e: 0.5**e)\n"
        "out = []\nfor _ in range(3):\n    out.append(opt.param_groups[0]['lr'])\n    opt.step()\n    sch.step()\n",
    ),
    "mindspore.train.ReduceLROnPlateau": snip(
        "mindspore.train.ReduceLROnPlateau",
        "torch.optim.lr_scheduler.ReduceLROnPlateau",
        "cb = target(monitor='loss', factor=0.5, patience=1)\nout = [cb.factor, cb.patience]\n",
        "opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=0.1)\n"
        "sch = target(opt, factor=0.5, patience=1)\nout = [sch.factor, sch.patience]\n",
    ),
    # --- initializers: the spread of a 64 x 32 draw ----------------------------------------------
    # n = 2,048 draws. A normal's sample sd has SE sd/sqrt(2n) = sd/64; a uniform's sd*sqrt(0.8/n)/2 =
    # sd/101. Two independent draws differ by sqrt(2) SE; the tolerance is 4 SE of that difference.
    # HeNormal / kaiming_normal_ (fan_in 32, gain sqrt 2): sd 0.25 -> 4 x 1.41 x 0.25/64 = 0.022
    "mindspore.common.initializer.HeNormal": _init(
        "mindspore.common.initializer.HeNormal", "torch.nn.init.kaiming_normal_", "", "", tol=0.022
    ),
    # XavierUniform / xavier_uniform_: bound sqrt(6/96) = 0.25, sd 0.144 -> 4 x 1.41 x 0.144/101 = 0.0081
    "mindspore.common.initializer.XavierUniform": _init(
        "mindspore.common.initializer.XavierUniform", "torch.nn.init.xavier_uniform_", "", "", tol=0.0081
    ),
    # Normal(sigma) / normal_(std), sd 0.02 given on both sides (the defaults differ: 0.01 vs 1):
    # 4 x 1.41 x 0.02/64 = 0.0018
    "mindspore.common.initializer.Normal": _init(
        "mindspore.common.initializer.Normal", "torch.nn.init.normal_", "sigma=0.02", ", std=0.02", tol=0.0018
    ),
    "mindspore.common.initializer.Zero": _init(
        "mindspore.common.initializer.Zero", "torch.nn.init.zeros_", "", "", tol=0.0
    ),
    # --- data pipeline ---------------------------------------------------------------------------
    "mindspore.dataset.GeneratorDataset": snip(
        "mindspore.dataset.GeneratorDataset",
        "torch.utils.data.DataLoader",
        "ds = target([(np.float32(v),) for v in data['labels']], column_names=['a'], shuffle=False).batch(2)" + _ITER,
        f"out = list(target({_LABELS_FLOAT}, batch_size=2))\n",
    ),
    "mindspore.dataset.NumpySlicesDataset": snip(
        "mindspore.dataset.NumpySlicesDataset",
        "torch.utils.data.TensorDataset",
        "ds = target(data['labels'].astype(np.float32), column_names=['a'], shuffle=False)" + _ITER,
        f"out = [r[0] for r in target({_LABELS_FLOAT})]\n",
    ),
    "mindspore.dataset.SubsetSampler": snip(
        "mindspore.dataset.SubsetSampler",
        "torch.utils.data.Subset",
        "ds = ms.dataset.NumpySlicesDataset(data['labels'].astype(np.float32), column_names=['a'], "
        "sampler=target([0, 2]))" + _ITER,
        f"out = [r[0] for r in target(torch.utils.data.TensorDataset({_LABELS_FLOAT}), [0, 2])]\n",
    ),
    "mindspore.dataset.DistributedSampler": snip(
        "mindspore.dataset.DistributedSampler",
        "torch.utils.data.distributed.DistributedSampler",
        "ds = ms.dataset.NumpySlicesDataset(data['labels'].astype(np.float32), column_names=['a'], "
        "sampler=target(2, 0, shuffle=False))" + _ITER,
        f"src = {_LABELS_FLOAT}\nout = [src[i] for i in target(range(4), num_replicas=2, rank=0, shuffle=False)]\n",
    ),
    "mindspore.dataset.Dataset.split": snip(
        "mindspore.dataset.Dataset.split",
        "torch.utils.data.random_split",
        "ds = ms.dataset.NumpySlicesDataset(data['labels'].astype(np.float32), column_names=['a'], shuffle=False)\n"
        "parts = ds.split([2, 2], randomize=False)\nout = [float(p.get_dataset_size()) for p in parts]\n",
        "out = [float(len(p)) for p in target(range(4), [2, 2])]\n",
    ),
    # Dataset readers on files written in their formats (the same bytes on both sides; torchvision's
    # readers are not installed here, so the torch side decodes the format as its documentation says).
    "mindspore.dataset.MnistDataset": snip(
        "mindspore.dataset.MnistDataset",
        "torch",  # torchvision.datasets.MNIST: idx files, 28 x 28 uint8 images and their labels
        _IDX + "ds = target(d, usage='train', shuffle=False)\n"
        "out = [np.asarray(c, np.float32) for row in ds.create_tuple_iterator(output_numpy=True) for c in row]\n"
        "shutil.rmtree(d)\n",
        _IDX + "out = [v for i in range(2) for v in (imgs[i][:, :, None].astype(np.float32), np.float32(labels[i]))]\n"
        "shutil.rmtree(d)\n",
    ),
    "mindspore.dataset.Cifar10Dataset": snip(
        "mindspore.dataset.Cifar10Dataset",
        "torch",  # torchvision.datasets.CIFAR10: records of 1 label byte + a 3 x 32 x 32 image, read as HWC
        _CIFAR + "ds = target(d, usage='test', shuffle=False, num_samples=2)\n"
        "out = [np.asarray(c, np.float32) for row in ds.create_tuple_iterator(output_numpy=True) for c in row]\n"
        "shutil.rmtree(d)\n",
        _CIFAR
        + "out = [v for i in range(2) for v in (imgs[i].transpose(1, 2, 0).astype(np.float32), np.float32(labels[i]))]\n",
    ),
    "mindspore.dataset.ImageFolderDataset": snip(
        "mindspore.dataset.ImageFolderDataset",
        "torch",  # torchvision.datasets.ImageFolder: one folder per class, the decoded image and its class
        "import os, tempfile\nfrom PIL import Image\nd = tempfile.mkdtemp()\nos.makedirs(os.path.join(d, 'cat'))\n"
        "Image.fromarray(data['u8']).save(os.path.join(d, 'cat', 'a.png'))\n"
        "ds = target(d, decode=True, shuffle=False)\n"
        "out = [np.asarray(c, np.float32) for row in ds.create_tuple_iterator(output_numpy=True) for c in row]\n"
        "import shutil\nshutil.rmtree(d)\n",
        "out = [u8.float(), torch.tensor(0.0)]\n",
    ),
    "mindspore.Parameter": snip(
        "mindspore.Parameter",
        "torch.nn.Parameter",
        "p = target(ms.Tensor(data['x']), name='p')\nout = [p * 2, ms.Tensor(float(p.requires_grad))]\n",
        "p = target(x.clone())\nout = [p.detach() * 2, torch.tensor(float(p.requires_grad))]\n",
    ),
    "mindspore.dataset.vision.Normalize": snip(
        "mindspore.dataset.vision.Normalize",
        "torch",  # torchvision.transforms.Normalize (not installed here): (x - mean) / std per channel
        "out = target(mean=[0.5, 0.5, 0.5], std=[0.25, 0.25, 0.25])(data['hwc'])\n",
        "out = (hwc - 0.5) / 0.25\n",
    ),
    "mindspore.dataset.vision.ToTensor": snip(
        "mindspore.dataset.vision.ToTensor",
        "torch",  # torchvision ToTensor: HWC uint8 -> CHW float in [0, 1]
        "out = target()(data['u8'])\n",
        "out = u8.permute(2, 0, 1).float() / 255\n",
    ),
    "mindspore.dataset.transforms.Compose": snip(
        "mindspore.dataset.transforms.Compose",
        "torch",  # torchvision Compose([Normalize, to CHW])
        "from mindspore.dataset import vision\n"
        "out = target([vision.Normalize(mean=[0.5] * 3, std=[0.25] * 3), vision.HWC2CHW()])(data['hwc'])\n",
        "out = ((hwc - 0.5) / 0.25).permute(2, 0, 1)\n",
    ),
    "mindspore.dataset.vision.RandomCrop": snip(
        "mindspore.dataset.vision.RandomCrop",
        "torch",  # torchvision RandomCrop(2): a 2 x 2 window
        "out = target(2)(data['u8'])\n",
        "out = u8[:2, :2]\n",
        compare=SHAPE,
    ),
    "mindspore.dataset.vision.RandomHorizontalFlip": snip(
        "mindspore.dataset.vision.RandomHorizontalFlip",
        "torch",  # torchvision RandomHorizontalFlip(p=1): the columns reversed
        "out = target(prob=1.0)(data['u8']).astype(np.float32)\n",
        "out = u8.flip(1).float()\n",
    ),
    "mindspore.dataset.vision.Resize": snip(
        "mindspore.dataset.vision.Resize",
        "torch",  # torchvision Resize([2, 2]): interpolation differs, the size must not
        "out = target([2, 2])(data['u8'])\n",
        "out = u8[:2, :2]\n",
        compare=SHAPE,
    ),
    "mindspore.dataset.vision.RandomResizedCrop": snip(
        "mindspore.dataset.vision.RandomResizedCrop",
        "torch",
        "out = target(2)(data['u8'])\n",
        "out = u8[:2, :2]\n",
        compare=SHAPE,
    ),
    "mindspore.dataset.vision.CenterCrop": snip(
        "mindspore.dataset.vision.CenterCrop",
        "torch",  # torchvision CenterCrop(2) of a 4 x 4 image: rows and columns 1-2
        "out = target(2)(data['u8']).astype(np.float32)\n",
        "out = u8[1:3, 1:3].float()\n",
    ),
    "mindspore.dataset.vision.RandomColorAdjust": snip(
        "mindspore.dataset.vision.RandomColorAdjust",
        "torch",  # ColorJitter() with no jitter: the image unchanged
        "out = target()(data['u8']).astype(np.float32)\n",
        "out = u8.float()\n",
    ),
    # --- mixed precision -------------------------------------------------------------------------
    "mindspore.amp.auto_mixed_precision": snip(
        "mindspore.amp.auto_mixed_precision",
        "torch.autocast",
        "out = target(ms.nn.Dense(3, 4), 'O2')(x).astype(ms.float32)\n",
        "with target('cpu', dtype=torch.bfloat16):\n    out = torch.nn.Linear(3, 4)(x).float()\n",
        compare=SHAPE,
    ),
    "mindspore.amp": snip(
        "mindspore.amp",
        "torch.amp",
        "out = target.DynamicLossScaler(1024.0, 2, 1000).scale(x)\n",
        "out = target.GradScaler('cpu', init_scale=1024.0).scale(x)\n",
    ),
    "mindspore.amp.DynamicLossScaleManager": snip(
        "mindspore.amp.DynamicLossScaleManager",
        "torch.amp.GradScaler",
        "out = [target(1024.0, 2, 1000).get_loss_scale()]\n",
        "out = [target('cpu', init_scale=1024.0).get_scale()]\n",
    ),
    # --- checkpoints, export, seeds, devices, training loop --------------------------------------
    "mindspore.save_checkpoint": snip(
        "mindspore.save_checkpoint",
        "torch.save",
        "import os, tempfile\nd = tempfile.mkdtemp()\nnet = ms.nn.Dense(3, 4)\nnet.weight.set_data(w)\n"
        "target(net, os.path.join(d, 'm.ckpt'))\nout = ms.load_checkpoint(os.path.join(d, 'm.ckpt'))['weight']\n"
        "import shutil\nshutil.rmtree(d)\n",
        "import io\nbuf = io.BytesIO()\ntarget({'weight': w}, buf)\nbuf.seek(0)\nout = torch.load(buf)['weight']\n",
        tol=0.0,
    ),
    "mindspore.load_checkpoint": snip(
        "mindspore.load_checkpoint",
        "torch.load",
        "import os, tempfile\nd = tempfile.mkdtemp()\nnet = ms.nn.Dense(3, 4)\nnet.weight.set_data(w)\n"
        "ms.save_checkpoint(net, os.path.join(d, 'm.ckpt'))\nout = target(os.path.join(d, 'm.ckpt'))['weight']\n"
        "import shutil\nshutil.rmtree(d)\n",
        "import io\nbuf = io.BytesIO()\ntorch.save({'weight': w}, buf)\nbuf.seek(0)\nout = target(buf)['weight']\n",
        tol=0.0,
    ),
    "mindspore.export": snip(
        "mindspore.export",
        "torch",  # torch.onnx.export needs onnxscript here: the check is that the file is written
        "import os, tempfile\nd = tempfile.mkdtemp()\n"
        "target(ms.nn.Dense(3, 4), x, file_name=os.path.join(d, 'm'), file_format='MINDIR')\n"
        "out = [float(os.path.getsize(os.path.join(d, 'm.mindir')) > 0)]\n"
        "import shutil\nshutil.rmtree(d)\n",
        "out = [1.0]\n",
    ),
    "mindspore.set_seed": snip(
        "mindspore.set_seed",
        "torch.manual_seed",
        "target(7)\na = ms.ops.rand(3)\ntarget(7)\nout = a - ms.ops.rand(3)\n",
        "target(7)\na = torch.rand(3)\ntarget(7)\nout = a - torch.rand(3)\n",
    ),
    "mindspore.set_device": snip(
        "mindspore.set_device",
        "torch.device",
        # it must come before the first kernel runs, and this worker has run many: a fresh process
        "import subprocess, sys\n"
        "code = 'import mindspore as ms; ms.set_device(\"CPU\"); print(ms.ops.relu(ms.Tensor([-1.0, 2.0])))'\n"
        "done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)\n"
        "assert done.returncode == 0, done.stderr.strip().splitlines()[-1:]\n"
        "out = [float('2.' in done.stdout)]\n",
        "out = [float(torch.relu(torch.tensor([-1.0, 2.0]).to(target('cpu')))[1] == 2)]\n",
    ),
    "mindspore.runtime.synchronize": snip(
        "mindspore.runtime.synchronize",
        "torch",  # torch.cuda.synchronize has no CPU meaning: the call returns
        "y2 = x * 2\ntarget()\nout = y2\n",
        "out = x * 2\n",
    ),
    "mindspore.train.Model": snip(
        "mindspore.train.Model",
        "torch",  # transformers.Trainer is not installed here: one epoch runs and the loss is finite
        "net = ms.nn.Dense(3, 1)\nmodel = target(net, loss_fn=ms.nn.MSELoss(), "
        "optimizer=ms.nn.SGD(net.trainable_params(), 0.01))\n"
        "ds = ms.dataset.NumpySlicesDataset((data['x'], data['x'][:, :1]), column_names=['a', 'b'], "
        "shuffle=False).batch(2)\nmodel.train(1, ds, dataset_sink_mode=False)\n"
        "out = [float(np.isfinite(net(x).asnumpy()).all())]\n",
        "out = [1.0]\n",
    ),
    "mindspore.set_auto_parallel_context": snip(
        "mindspore.set_auto_parallel_context",
        "torch",  # DDP needs a process group: the context call itself must run
        "target(parallel_mode='data_parallel', gradients_mean=True)\n"
        "out = [float(ms.get_auto_parallel_context('parallel_mode') == 'data_parallel')]\n"
        "ms.reset_auto_parallel_context()\n",
        "out = [1.0]\n",
    ),
    # --- communication: needs a launched job -----------------------------------------------------
    "mindspore.communication": launch_only("mindspore.communication", "torch.distributed", _COMM),
    "mindspore.communication.init": launch_only(
        "mindspore.communication.init", "torch.distributed.init_process_group", _COMM
    ),
    "mindspore.communication.get_rank": launch_only(
        "mindspore.communication.get_rank", "torch.distributed.get_rank", _COMM
    ),
    "mindspore.communication.get_group_size": launch_only(
        "mindspore.communication.get_group_size", "torch.distributed.get_world_size", _COMM
    ),
    "mindspore.communication.comm_func.all_reduce": launch_only(
        "mindspore.communication.comm_func.all_reduce", "torch.distributed.all_reduce", _COMM
    ),
    "mindspore.communication.comm_func.barrier": launch_only(
        "mindspore.communication.comm_func.barrier", "torch.distributed.barrier", _COMM
    ),
}
