"""Probe building blocks without a framework: specs, FLOPs, weights, data readers, statistics,
the timing protocol on a fake clock, device choice, parity comparison, runner mapping."""

import gzip
import pickle
import struct

import numpy as np
import pytest

from probes.training import parity
from probes.training import common, data, devices, flops, measure, specs, stats, weights


# ------------------------------------------------------------------ architecture and FLOPs


@pytest.mark.parametrize("model,count", [("lenet", 61_706), ("resnet18", 11_173_962), ("resnet50", 23_520_842)])
def test_spec_parameter_counts_match_the_issue(model, count):
    assert specs.param_count(model) == count


@pytest.mark.parametrize("model,macs", [("lenet", 416_520), ("resnet18", 555_422_720), ("resnet50", 1_297_829_888)])
def test_forward_macs_match_the_protocol_table(model, macs):
    assert flops.forward_macs(model) == macs
    assert flops.train_flops_per_image(model) < 3 * 2 * macs  # first layer's dgrad left out


def test_unknown_model_is_rejected():
    with pytest.raises(ValueError, match="unknown model"):
        specs.layers("vgg16")


def test_mindspore_names_map_batchnorm_only():
    names = weights.mindspore_names("resnet18")
    assert names["bn1.weight"] == "bn1.gamma"
    assert names["layer2.0.shortcut.1.running_var"] == "layer2.0.shortcut.1.moving_variance"
    assert names["layer2.0.shortcut.0.weight"] == "layer2.0.shortcut.0.weight"
    assert names["fc.bias"] == "fc.bias"


# ------------------------------------------------------------------ weights


def test_canonical_weights_are_seeded_float32_and_checksummed():
    a = weights.canonical("lenet")
    b = weights.canonical("lenet")
    assert list(a) == [t.name for t in specs.tensors("lenet")]
    assert all(v.dtype == np.float32 for v in a.values())
    assert weights.checksum(a) == weights.checksum(b) == weights.canonical_checksum("lenet")
    a["fc3.bias"][0] += 1e-3
    assert weights.checksum(a) != weights.canonical_checksum("lenet")
    assert weights.canonical_checksum("lenet", seed=1) != weights.canonical_checksum("lenet")


def test_resnet_bn_starts_neutral():
    w = weights.canonical("resnet18")
    assert np.all(w["bn1.weight"] == 1) and np.all(w["bn1.running_var"] == 1)
    assert np.all(w["bn1.bias"] == 0) and np.all(w["bn1.running_mean"] == 0)
    std = float(w["layer1.0.conv1.weight"].std())
    assert 0.5 * np.sqrt(2 / (64 * 9)) < std < 1.5 * np.sqrt(2 / (64 * 9))


# ------------------------------------------------------------------ data


def test_synthetic_batches_are_seeded_and_learnable():
    a = data.synthetic("resnet18", 16, n_batches=3)
    b = data.synthetic("resnet18", 16, n_batches=3)
    assert a.images.shape == (3, 16, 3, 32, 32) and a.labels.shape == (3, 16)
    assert a.images.dtype == np.float32 and a.labels.dtype == np.int32
    assert np.array_equal(a.images, b.images)
    # Learnable: a nearest-class-mean classifier already beats chance by far.
    x = a.images.reshape(48, -1)
    y = a.labels.reshape(-1)
    means = np.stack([x[y == c].mean(0) if np.any(y == c) else np.zeros(x.shape[1]) for c in range(10)])
    pred = np.argmin(((x[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    assert (pred == y).mean() > 0.5
    assert data.synthetic("lenet", 4, n_batches=1).images.shape == (1, 4, 1, 32, 32)


def _cifar_records(n, seed=0):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    pixels = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
    return labels, pixels


def test_cifar_binary_layout(tmp_path):
    folder = tmp_path / "cifar-10-batches-bin"
    folder.mkdir()
    for i in (1, 2):
        labels, pixels = _cifar_records(20, seed=i)
        np.concatenate([labels[:, None], pixels], axis=1).tofile(folder / f"data_batch_{i}.bin")
    x, y, kind = data.read_raw(tmp_path)
    assert kind == "cifar10-bin" and x.shape == (40, 3, 32, 32) and y.shape == (40,)
    labels, pixels = _cifar_records(20, seed=1)
    assert np.array_equal(y[:20], labels) and np.array_equal(x[0].reshape(-1), pixels[0])
    b = data.from_path(folder, "resnet18", batch_size=8, n_batches=8)
    assert b.images.shape == (5, 8, 3, 32, 32)  # 40 images: 5 full batches
    assert abs(float(b.images.mean())) < 0.1 and b.source.startswith("cifar10-bin")
    grey = data.from_path(folder, "lenet", batch_size=8, n_batches=2)
    assert grey.images.shape == (2, 8, 1, 32, 32)


def test_cifar_python_layout(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    labels, pixels = _cifar_records(24)
    with open(folder / "data_batch_1", "wb") as fh:
        pickle.dump({b"data": pixels, b"labels": labels.tolist(), b"batch_label": b"x"}, fh)
    (folder / "batches.meta").write_bytes(pickle.dumps({b"label_names": []}))
    x, y, kind = data.read_raw(tmp_path)
    assert kind == "cifar10-py" and x.shape == (24, 3, 32, 32)
    assert np.array_equal(y, labels) and np.array_equal(x[3].reshape(-1), pixels[3])
    assert data.from_path(folder, "resnet18", 8).images.shape == (3, 8, 3, 32, 32)


@pytest.mark.parametrize("gz", [False, True])
def test_mnist_idx(tmp_path, gz):
    rng = np.random.default_rng(3)
    imgs = rng.integers(0, 256, (12, 28, 28)).astype(np.uint8)
    labs = rng.integers(0, 10, 12).astype(np.uint8)
    opener = gzip.open if gz else open
    sfx = ".gz" if gz else ""
    with opener(tmp_path / f"train-images-idx3-ubyte{sfx}", "wb") as fh:
        fh.write(struct.pack(">4B3I", 0, 0, 8, 3, 12, 28, 28) + imgs.tobytes())
    with opener(tmp_path / f"train-labels-idx1-ubyte{sfx}", "wb") as fh:
        fh.write(struct.pack(">4BI", 0, 0, 8, 1, 12) + labs.tobytes())
    x, y, kind = data.read_raw(tmp_path)
    assert kind == "mnist-idx" and x.shape == (12, 1, 28, 28) and np.array_equal(y, labs)
    b = data.from_path(tmp_path, "lenet", 4)
    assert b.images.shape == (3, 4, 1, 32, 32)  # padded 28 -> 32
    assert data.from_path(tmp_path, "resnet18", 4).images.shape == (3, 4, 3, 32, 32)


def test_bad_data_paths_name_the_file(tmp_path):
    with pytest.raises(data.DataError, match="no such file"):
        data.read_raw(tmp_path / "missing")
    with pytest.raises(data.DataError, match="expected CIFAR-10"):
        data.read_raw(tmp_path)
    bad = tmp_path / "data_batch_1.bin"
    bad.write_bytes(b"\x01" * 100)
    with pytest.raises(data.DataError, match="data_batch_1.bin"):
        data.read_raw(tmp_path)
    labels, pixels = _cifar_records(3)
    np.concatenate([labels[:, None], pixels], axis=1).tofile(bad)
    with pytest.raises(data.DataError, match="fewer than one batch"):
        data.from_path(tmp_path, "lenet", 8)


# ------------------------------------------------------------------ statistics

T9 = 2.2621571627409915  # scipy.stats.t.ppf(0.975, 9), checked against scipy in test_quality.py


def test_summary_and_batch_means_ci():
    s = stats.summarize([10.0] * 9 + [20.0])
    assert s["median"] == 10.0 and s["max"] == 20.0 and s["n"] == 10 and s["cv"] > 0.2
    est, lo, hi = stats.batch_means_ci([0.01] * 30, items_per_sample=32, t_crit=T9)
    assert est == pytest.approx(3200) and lo == pytest.approx(3200) and hi == pytest.approx(3200)
    rng = np.random.default_rng(0)
    noisy = 0.01 * (1 + 0.2 * rng.standard_normal(60))
    est, lo, hi = stats.batch_means_ci(noisy, 32, T9)
    assert lo < est < hi and (hi - lo) / est < 0.2
    assert stats.batch_means_ci([0.01, 0.01], 32, T9) is None


def test_warmup_drift_and_stop_rule():
    assert not stats.warmup_stable([5, 4, 3, 2, 1.5, 1.2, 1.1, 1.0, 1.0])
    assert stats.warmup_stable([5, 4, 1.0, 1.02, 1.0, 1.0, 1.01, 0.99, 1.0, 1.0])
    assert stats.drift([1.0] * 5 + [1.2] * 5) == pytest.approx(0.2)
    flat = [1.0] * 30
    assert stats.converged(flat, [0.001] * 30, 32, T9)
    assert not stats.converged(flat[:29], [0.001] * 29, 32, T9)
    warns = stats.noise_warnings(stats.summarize([1, 2] * 10), [1, 2] * 10)
    assert any("CV" in w for w in warns) and any("IQR" in w for w in warns)


class FakeClock:
    """Each step advances time by a scripted amount: the protocol runs without sleeping."""

    def __init__(self, step_s):
        self.t = 0.0
        self.step_s = step_s
        self.i = 0

    def __call__(self):
        return self.t

    def step(self, i):
        self.t += self.step_s(i)
        self.i += 1
        return 2.3 / (1 + i)  # a falling loss


def test_protocol_first_step_apart_warmup_then_converges():
    clock = FakeClock(lambda i: 2.0 if i == 0 else (0.004 if i < 8 else 0.002))
    res = measure.run(clock.step, float, measure.Plan(budget_s=5.0, batch_size=32, t_crit=T9), clock=clock)
    assert res["first_step_seconds"] == pytest.approx(2.0)
    assert res["warmup_steps"] >= 10
    assert res["steps_per_sample"] == 5  # 2 ms steps grouped into >= 10 ms samples
    assert res["stop_reason"] == "converged" and res["samples"] == 30
    assert res["images_per_second"] == pytest.approx(16000)
    assert res["step_time_ms"]["median"] == pytest.approx(2.0)
    assert res["loss_last"] < res["loss_first"]
    assert not any("loss did not fall" in w for w in res["warnings"])


def test_protocol_snapshots_the_host_around_the_timed_part_only():
    clock = FakeClock(lambda i: 2.0 if i == 0 else 0.002)
    seen = []

    def snapshot():
        seen.append(clock.i)  # steps run when the snapshot is taken
        return {"at_step": clock.i}

    plan = measure.Plan(budget_s=5.0, batch_size=32, t_crit=T9, snapshot=snapshot)
    res = measure.run(clock.step, float, plan, clock=clock)
    start, end = res["load_window"]
    assert start["at_step"] == 1 + res["warmup_steps"] and end["at_step"] == res["total_steps"]
    assert (
        measure.run(clock.step, float, measure.Plan(budget_s=5.0, batch_size=32, t_crit=T9), clock=clock)["load_window"]
        is None
    )
    snap = common.cpu_snapshot()
    assert snap is None or (snap["total_s"] >= snap["busy_s"] >= 0 and snap["self_cpu_s"] > 0)


def test_protocol_budget_stop_and_warmup_cap_warn():
    # Alternating step times never settle: warmup hits its cap, the stop rule never holds.
    clock = FakeClock(lambda i: 0.05 if i % 2 else 0.02)
    res = measure.run(clock.step, float, measure.Plan(budget_s=2.0, batch_size=8, t_crit=T9), clock=clock)
    assert res["stop_reason"] == "budget"
    assert res["warmup_capped"]
    assert any("warmup hit its cap" in w for w in res["warnings"])
    assert any("budget spent" in w for w in res["warnings"])
    assert res["samples"] >= 5


def test_protocol_max_steps_and_flat_loss_warning():
    clock = FakeClock(lambda i: 0.001)
    res = measure.run(
        lambda i: (clock.step(i), 2.3)[1],
        float,
        measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9, max_steps=60),
        clock=clock,
    )
    assert res["stop_reason"] in ("max_steps", "converged")
    assert res["total_steps"] <= 60
    assert any("loss did not fall" in w for w in res["warnings"])


def test_protocol_max_steps_leaves_half_to_measurement_when_warmup_never_settles():
    """A loaded host: step times never settle, and the time cap is far away. The old warmup took all
    40 steps and the run had no measured rate ("no steady state"); half of --max-steps is measured."""
    clock = FakeClock(lambda i: 0.001 if i % 2 else 0.003)
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9, max_steps=40), clock=clock
    )
    assert res["warmup_steps"] == 19  # steps 1..19 (step 0 is the first step, timed alone)
    assert res["warmup_capped"] and any("half of --max-steps 40" in w for w in res["warnings"])
    assert res["samples"] >= 1 and res["images_per_second"] is not None
    assert res["total_steps"] == 40 and res["measured_steps"] == 20


def test_protocol_one_sample_of_the_steps_left_rather_than_none():
    """Steps so fast that one >= 10 ms sample needs more steps than --max-steps leaves: the steps left
    make one sample (before: zero samples, no rate)."""
    clock = FakeClock(lambda i: 0.0001)
    res = measure.run(
        clock.step, float, measure.Plan(budget_s=100.0, batch_size=8, t_crit=T9, max_steps=12), clock=clock
    )
    assert res["samples"] == 1 and res["steps_per_sample"] == 12 - 1 - res["warmup_steps"]
    assert res["images_per_second"] == pytest.approx(8 / 0.0001)


# ------------------------------------------------------------------ devices


@pytest.mark.parametrize(
    "req,fw,avail,expect",
    [
        ("auto", "pytorch", {}, ("cpu", "cpu")),
        ("auto", "pytorch", {"cuda": True}, ("cuda", "cuda")),
        ("auto", "pytorch", {"npu": True}, ("npu", "npu")),
        ("auto", "mindspore", {"cuda": True, "npu": True}, ("npu", "Ascend")),
        ("auto", "mindspore", {"cuda": True}, ("cuda", "GPU")),
        ("cpu", "mindspore", {"npu": True}, ("cpu", "CPU")),
        ("cuda", "pytorch", {"cuda": True}, ("cuda", "cuda")),
        ("cuda", "pytorch", {}, (None, "")),
        ("npu", "mindspore", {}, (None, "")),
    ],
)
def test_device_choice(req, fw, avail, expect):
    dev, native, reason = devices.choose(req, fw, avail)
    assert (dev, native) == expect
    if dev is None:
        assert "cannot use" in reason


def test_device_probe_functions_fail_soft():
    class Broken:
        def __getattr__(self, name):
            raise RuntimeError("no driver")

    assert devices.torch_available(Broken()) == {"cuda": False, "npu": False}
    assert devices.mindspore_available(Broken()) == {"cuda": False, "npu": False}


# ------------------------------------------------------------------ parity comparison


def _arrays(model, rng):
    out = {
        "logits_eval": rng.standard_normal((4, 10)).astype(np.float32),
        "logits_train": rng.standard_normal((4, 10)).astype(np.float32),
        "loss": np.array([2.3], np.float32),
    }
    for t in specs.tensors(model):
        if t.trainable:
            out["grad/" + t.name] = rng.standard_normal(t.shape).astype(np.float32)
        out["after/" + t.name] = rng.standard_normal(t.shape).astype(np.float32)
    return out


def test_parity_identical_passes_and_mismatches_name_a_cause():
    ref = _arrays("lenet", np.random.default_rng(0))
    same = {k: v.copy() for k, v in ref.items()}
    res = parity.compare("lenet", ref, same)
    assert res["ok"] and res["max_abs_diff"] == 0.0
    bad = {k: v.copy() for k, v in ref.items()}
    bad["after/fc1.weight"] += 5e-6  # e.g. weight decay skipped somewhere
    res = parity.compare("lenet", ref, bad)
    assert not res["ok"] and "params_after_step" in res["error"] and "weight decay" in res["likely_cause"]
    bad = {k: v.copy() for k, v in ref.items()}
    bad["grad/conv1.weight"] *= 1.01
    res = parity.compare("lenet", ref, bad)
    assert not res["ok"] and res["checks"][-2]["worst_tensor"] == "conv1.weight"


def test_parity_resnet_uses_cosine_of_whole_gradient():
    ref = _arrays("resnet18", np.random.default_rng(1))
    other = {k: v.copy() for k, v in ref.items()}
    other["grad/layer1.0.conv1.weight"][0, 0, 0, 0] *= 1.2  # one noisy element: per-tensor rel err big
    res = parity.compare("resnet18", ref, other)
    grad = [c for c in res["checks"] if c["name"] == "gradients"][0]
    assert grad["metric"] == "cosine_similarity" and grad["ok"]
    other["grad/fc.weight"] = -other["grad/fc.weight"]
    other["grad/layer4.1.conv2.weight"] = -other["grad/layer4.1.conv2.weight"]
    assert not parity.compare("resnet18", ref, other)["ok"]


def test_parity_missing_arrays_fail():
    ref = _arrays("lenet", np.random.default_rng(0))
    other = dict(ref)
    other.pop("grad/fc3.bias")
    res = parity.compare("lenet", ref, other)
    assert not res["ok"] and "grad/fc3.bias" in res["error"]


def test_ci_with_few_slow_samples_is_not_clamped_at_zero():
    # 5 samples, t(0.975, 4) = 2.776: the interval reaches below 0 and is reported as it is
    # (probes.quality then calls the run unusable), never clamped to "0-...".
    est, lo, hi = stats.batch_means_ci([7.0, 2.5, 9.0, 3.1, 60.0], items_per_sample=32, t_crit=2.776)
    assert lo < 0.0 < est < hi


def test_parent_side_loads_no_framework_and_worker_helpers_no_pydantic():
    import subprocess
    import sys

    parent = [
        "probes.training.runner",
        "probes.training.models",
        "probes.training.parity",
        "advisor.cache",
        "advisor.commands.probe",
    ]
    helpers = [
        "probes.training." + m for m in ("specs", "weights", "data", "stats", "measure", "flops", "devices", "common")
    ]
    code = (
        "import importlib, sys\n"
        f"for m in {helpers!r}: importlib.import_module(m)\n"
        "bad = [m for m in ('pydantic', 'torch', 'mindspore', 'textual') if m in sys.modules]\n"
        f"for m in {parent!r}: importlib.import_module(m)\n"
        "bad += [m for m in ('torch', 'mindspore', 'textual') if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
