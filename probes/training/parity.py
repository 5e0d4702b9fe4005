"""Cross-framework parity: compare the arrays the PyTorch and MindSpore aux workers wrote for the
same weights and batch (numpy only; the parent never imports a framework).

Every tolerance follows from fp32 arithmetic, not from one quiet run (see `tolerances`):
- logits (eval and train), loss, BN running statistics: max abs diff <= bound x max(1, max |ref|),
  bound = LAMBDA x u x sqrt(K) x sqrt(L): u = 2^-24 (fp32 unit roundoff), K = the longest
  reduction of the forward pass (a conv's cin*k*k, a linear's fan-in, a BatchNorm's batch*H*W),
  L = the conv/linear layers the error passes through. Rounding errors of a length-K sum grow
  like sqrt(K) u (Higham & Mary, "A New Approach to Probabilistic Rounding Error Analysis", SIAM
  J. Sci. Comput. 2019) whatever order the sum is split in, so the thread count (how a
  reduction is cut into per-thread partial sums) changes the bits but not the bound.
- gradients: LeNet by the max relative error per tensor, bound as above with the backward pass's
  weight-gradient reductions (batch*H*W) and 2L layers; ResNets by the cosine similarity of the
  whole gradient (>= GRAD_COSINE_MIN), because ReLU inputs within rounding of zero flip and make
  per-element error a matter of which side of zero they fall, not of rounding (torch itself moves
  ~1% under a 1e-6 nudge).
- parameters after one SGD step: what the gradient difference does not explain. Step 1 of
  SGD(momentum, weight decay) is p1 = p0 - lr (g + wd p0) in both frameworks, so
  (p1_other - p1_ref) + lr (g_other - g_ref) is zero up to the update's STEP_ROUNDINGS fp32
  roundings; lr is read from the reference's own step (least squares of p1 - p0 on g and p0).
  A differing optimizer rule (weight decay skipped on BN gamma = lr x wd x gamma = 5e-6) stays
  ~10x above that bound, while noisy gradients (ReLU flips move single elements by 1e-3) no
  longer make the check depend on the machine's load.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import numpy as np

from probes.training import specs, weights

U32 = 2.0**-24  # fp32 unit roundoff (half an ulp of 1.0)
LAMBDA = 4.0  # assumption: multiples of sqrt(K) u the probabilistic bound allows
# (Higham & Mary: lambda ~ 4 holds with probability > 0.999)
STEP_ROUNDINGS = 3.0  # fl(g + wd p), fl(lr x d), fl(p - step): one rounding each
GRAD_COSINE_MIN = 0.9999  # assumption: ReLU flips, not rounding, set the ResNet gradient floor

# What a failing check most likely means (shown to the user with the failure).
LIKELY_CAUSE = {
    "logits_eval": "the networks differ (padding mode, conv bias, pooling stride) or the weights "
    "were not mapped onto the same parameters",
    "logits_train": "BatchNorm in training mode differs (batch statistics, eps) or the network "
    "started in inference mode",
    "loss": "the loss differs (reduction, label dtype, softmax)",
    "bn_running_stats": "the BatchNorm momentum convention (MindSpore momentum=0.9 equals torch "
    "momentum=0.1) or the variance estimator differ",
    "gradients": "the backward pass differs (loss reduction, an op with a different gradient)",
    "params_after_step": "the optimizer differs (momentum convention, weight decay on BN/bias "
    "parameters, learning rate)",
}


def tolerances(model: str, batch: int) -> dict:
    """The relative bounds for `model` at `batch`, with what they were derived from."""
    layers = specs.layers(model)
    forward_k = [lay.cin * lay.k * lay.k for lay in layers if lay.op in ("conv", "linear")]
    forward_k += [batch * lay.hin * lay.hin for lay in layers if lay.op == "bn"]
    backward_k = [batch * lay.hout * lay.hout for lay in layers if lay.op in ("conv", "linear")]
    depth = sum(1 for lay in layers if lay.op in ("conv", "linear"))
    k_fwd, k_bwd = max(forward_k), max(backward_k + forward_k)
    return bounds(k_fwd, k_bwd, depth, batch, depth_name="layers")


def bounds(k_fwd: int, k_bwd: int, depth: int, batch: int, depth_name: str, **derivation) -> dict:
    """LAMBDA x u x sqrt(K) x sqrt(D) forward, sqrt(2D) for gradients, STEP_ROUNDINGS x u after a step,
    for any network once its longest reductions (K) and the matmuls on the path (D) are counted."""
    return {
        "forward": LAMBDA * U32 * math.sqrt(k_fwd) * math.sqrt(depth),
        "gradient": LAMBDA * U32 * math.sqrt(k_bwd) * math.sqrt(2 * depth),
        "step": STEP_ROUNDINGS * U32,
        "derivation": {
            "u": U32,
            "lambda": LAMBDA,
            "reduction_length": k_fwd,
            "backward_reduction_length": k_bwd,
            depth_name: depth,
            "batch": batch,
            **derivation,
        },
    }


def _scale(ref: np.ndarray) -> float:
    return max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0


def _check(name: str, metric: str, value: float, tol: float, ok: bool, **extra) -> dict:
    d = {"name": name, "metric": metric, "value": float(value), "tolerance": float(tol), "ok": bool(ok)}
    d.update(extra)
    return d


def _abs_check(name: str, a: list[np.ndarray], b: list[np.ndarray], rel: float) -> dict:
    diff, scale = 0.0, 1.0
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return _check(name, "shape", float("inf"), 0.0, False, detail=f"{x.shape} vs {y.shape}")
        diff = max(diff, float(np.max(np.abs(x.astype(np.float64) - y))) if x.size else 0.0)
        scale = max(scale, _scale(x))
    return _check(name, "max_abs_diff", diff, rel * scale, diff <= rel * scale)


def _learning_rate(model: str, ref: dict, names: list[str]) -> Optional[float]:
    """lr of the reference's first step: least squares of p1 - p0 = -lr g - (lr wd) p0."""
    p0 = weights.canonical(model)
    if not all(n in p0 and p0[n].shape == ref["after/" + n].shape for n in names):
        return None
    step = np.concatenate([(ref["after/" + n].astype(np.float64) - p0[n]).ravel() for n in names])
    grad = np.concatenate([ref["grad/" + n].astype(np.float64).ravel() for n in names])
    start = np.concatenate([p0[n].astype(np.float64).ravel() for n in names])
    coef, *_ = np.linalg.lstsq(np.stack([grad, start], axis=1), -step, rcond=None)
    return float(coef[0])


def _step_check(model: str, ref: dict, other: dict, names: list[str], tol: float) -> dict:
    """The parameter difference after one step that the gradient difference does not explain."""
    for n in names:
        for k in ("after/" + n, "grad/" + n):
            if ref[k].shape != other[k].shape:
                return _check(
                    "params_after_step",
                    "shape",
                    float("inf"),
                    0.0,
                    False,
                    detail=f"{k}: {ref[k].shape} vs {other[k].shape}",
                )
    lr = _learning_rate(model, ref, names)
    if lr is None:  # not the canonical start: fall back to the plain difference
        lr = 0.0
    worst, scale = 0.0, 1.0
    for n in names:
        pr, po = ref["after/" + n].astype(np.float64), other["after/" + n].astype(np.float64)
        gr, go = ref["grad/" + n].astype(np.float64), other["grad/" + n].astype(np.float64)
        if not pr.size:
            continue
        worst = max(worst, float(np.max(np.abs((po - pr) + lr * (go - gr)))))
        scale = max(scale, float(np.max(np.abs(pr) + np.abs(po) + abs(lr) * (np.abs(gr) + np.abs(go)))))
    return _check("params_after_step", "max_abs_residual", worst, tol * scale, worst <= tol * scale, learning_rate=lr)


def compare(model: str, ref: dict, other: dict) -> dict:
    """Compare two parity array sets (ref = PyTorch). Returns {model, ok, max_abs_diff, checks,
    likely_cause}."""
    missing = sorted(set(ref) ^ set(other))
    if missing:
        return {
            "model": model,
            "ok": False,
            "status": "failed",
            "max_abs_diff": None,
            "checks": [],
            "error": f"the two frameworks wrote different arrays: {', '.join(missing[:5])}",
            "likely_cause": "the networks' parameter names or structure differ",
        }
    tol = tolerances(model, int(ref["logits_eval"].shape[0]) if ref["logits_eval"].ndim else 1)
    checks = [
        _abs_check("logits_eval", [ref["logits_eval"]], [other["logits_eval"]], tol["forward"]),
        _abs_check("logits_train", [ref["logits_train"]], [other["logits_train"]], tol["forward"]),
        _abs_check("loss", [ref["loss"]], [other["loss"]], tol["forward"]),
    ]
    bn = sorted(k for k in ref if k.startswith("after/") and k.endswith(("running_mean", "running_var")))
    if bn:
        checks.append(_abs_check("bn_running_stats", [ref[k] for k in bn], [other[k] for k in bn], tol["forward"]))
    grads = sorted(k for k in ref if k.startswith("grad/"))
    if model == "lenet":
        worst, where = 0.0, ""
        for k in grads:
            denom = float(np.max(np.abs(ref[k]))) + 1e-12
            rel = float(np.max(np.abs(ref[k].astype(np.float64) - other[k]))) / denom
            if rel > worst:
                worst, where = rel, k[len("grad/") :]
        checks.append(
            _check("gradients", "max_rel_err", worst, tol["gradient"], worst <= tol["gradient"], worst_tensor=where)
        )
    else:
        a = np.concatenate([ref[k].ravel() for k in grads]).astype(np.float64)
        b = np.concatenate([other[k].ravel() for k in grads]).astype(np.float64)
        cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))
        checks.append(_check("gradients", "cosine_similarity", cos, GRAD_COSINE_MIN, cos >= GRAD_COSINE_MIN))
    trained = sorted(k[len("grad/") :] for k in grads if "after/" + k[len("grad/") :] in ref)
    checks.append(_step_check(model, ref, other, trained, tol["step"]))
    abs_values = [c["value"] for c in checks if c["metric"] in ("max_abs_diff", "max_abs_residual")]
    ok = all(c["ok"] for c in checks)
    failed = [c["name"] for c in checks if not c["ok"]]
    return {
        "model": model,
        "ok": ok,
        "status": "ok" if ok else "failed",
        "max_abs_diff": max(abs_values) if abs_values else None,
        "checks": checks,
        "tolerance_derivation": tol["derivation"],
        "error": None if ok else f"mismatch in {', '.join(failed)}",
        "likely_cause": None if ok else LIKELY_CAUSE.get(failed[0]),
    }


def compare_files(model: str, ref_path: str | Path, other_path: str | Path) -> dict:
    try:
        with np.load(ref_path) as r, np.load(other_path) as o:
            ref = {k: r[k] for k in r.files}
            other = {k: o[k] for k in o.files}
    except (OSError, ValueError) as exc:
        return {
            "model": model,
            "ok": False,
            "status": "failed",
            "max_abs_diff": None,
            "checks": [],
            "error": f"could not read the parity arrays: {exc}",
            "likely_cause": None,
        }
    return compare(model, ref, other)


def skipped(model: str, reason: str, status: str = "skipped") -> dict:
    return {
        "model": model,
        "ok": False,
        "status": status,
        "max_abs_diff": None,
        "checks": [],
        "error": reason,
        "likely_cause": None,
    }


def summary_line(p: dict) -> str:
    if p.get("status") != "ok" and not p.get("checks"):
        return f"{p['model']}: {p.get('status')} ({p.get('error')})"
    parts = [
        f"{c['name']} {c['value']:.6f}" if c["metric"] == "cosine_similarity" else f"{c['name']} {c['value']:.2e}"
        for c in p["checks"]
    ]
    return f"{p['model']}: {'pass' if p['ok'] else 'FAIL'} ({'; '.join(parts)})"


def find_optional(path: Optional[str]) -> Optional[Path]:
    return Path(path) if path and Path(path).is_file() else None
