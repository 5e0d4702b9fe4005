"""Cross-framework parity: compare the arrays the PyTorch and MindSpore aux workers wrote for the
same weights and batch (numpy only; the parent never imports a framework).

Tolerances (fp32, documented so a reader can judge a failure):
- logits (eval and train), loss, BN running statistics: max abs diff <= 1e-5 x max(1, max |ref|);
- parameters after one SGD step: max abs diff <= 1e-6 x max(1, max |ref|) (the step moves them by
  lr x gradient, so a differing optimizer rule, e.g. weight decay skipped on BN gamma = 5e-6,
  must show);
- gradients: LeNet by the max relative error per tensor (<= 1e-4); ResNets by the cosine
  similarity of the whole gradient (>= 0.9999), because ReLU inputs within ~1e-6 of zero make
  per-tensor relative error meaningless there (torch itself moves ~1% under a 1e-6 nudge).
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

ATOL = 1e-5
PARAM_ATOL = 1e-6
GRAD_REL_TOL = 1e-4
GRAD_COSINE_MIN = 0.9999

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


def _scale(ref: np.ndarray) -> float:
    return max(1.0, float(np.max(np.abs(ref)))) if ref.size else 1.0


def _check(name: str, metric: str, value: float, tol: float, ok: bool, **extra) -> dict:
    d = {"name": name, "metric": metric, "value": float(value), "tolerance": float(tol), "ok": bool(ok)}
    d.update(extra)
    return d


def _abs_check(name: str, a: list[np.ndarray], b: list[np.ndarray], atol: float = ATOL) -> dict:
    diff, scale = 0.0, 1.0
    for x, y in zip(a, b):
        if x.shape != y.shape:
            return _check(name, "shape", float("inf"), 0.0, False, detail=f"{x.shape} vs {y.shape}")
        diff = max(diff, float(np.max(np.abs(x.astype(np.float64) - y))) if x.size else 0.0)
        scale = max(scale, _scale(x))
    return _check(name, "max_abs_diff", diff, atol * scale, diff <= atol * scale)


def compare(model: str, ref: dict, other: dict) -> dict:
    """Compare two parity array sets (ref = PyTorch). Returns {model, ok, max_abs_diff, checks,
    likely_cause}."""
    missing = sorted(set(ref) ^ set(other))
    if missing:
        return {"model": model, "ok": False, "status": "failed", "max_abs_diff": None, "checks": [],
                "error": f"the two frameworks wrote different arrays: {', '.join(missing[:5])}",
                "likely_cause": "the networks' parameter names or structure differ"}
    checks = [
        _abs_check("logits_eval", [ref["logits_eval"]], [other["logits_eval"]]),
        _abs_check("logits_train", [ref["logits_train"]], [other["logits_train"]]),
        _abs_check("loss", [ref["loss"]], [other["loss"]]),
    ]
    bn = sorted(k for k in ref if k.startswith("after/") and k.endswith(("running_mean", "running_var")))
    if bn:
        checks.append(_abs_check("bn_running_stats", [ref[k] for k in bn], [other[k] for k in bn]))
    grads = sorted(k for k in ref if k.startswith("grad/"))
    if model == "lenet":
        worst, where = 0.0, ""
        for k in grads:
            denom = float(np.max(np.abs(ref[k]))) + 1e-12
            rel = float(np.max(np.abs(ref[k].astype(np.float64) - other[k]))) / denom
            if rel > worst:
                worst, where = rel, k[len("grad/"):]
        checks.append(_check("gradients", "max_rel_err", worst, GRAD_REL_TOL, worst <= GRAD_REL_TOL,
                             worst_tensor=where))
    else:
        a = np.concatenate([ref[k].ravel() for k in grads]).astype(np.float64)
        b = np.concatenate([other[k].ravel() for k in grads]).astype(np.float64)
        cos = float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-30))
        checks.append(_check("gradients", "cosine_similarity", cos, GRAD_COSINE_MIN,
                             cos >= GRAD_COSINE_MIN))
    params = sorted(k for k in ref if k.startswith("after/") and k not in bn)
    checks.append(_abs_check("params_after_step", [ref[k] for k in params], [other[k] for k in params],
                             PARAM_ATOL))
    abs_values = [c["value"] for c in checks if c["metric"] == "max_abs_diff"]
    ok = all(c["ok"] for c in checks)
    failed = [c["name"] for c in checks if not c["ok"]]
    return {"model": model, "ok": ok, "status": "ok" if ok else "failed",
            "max_abs_diff": max(abs_values) if abs_values else None, "checks": checks,
            "error": None if ok else f"mismatch in {', '.join(failed)}",
            "likely_cause": None if ok else LIKELY_CAUSE.get(failed[0])}


def compare_files(model: str, ref_path: str | Path, other_path: str | Path) -> dict:
    try:
        with np.load(ref_path) as r, np.load(other_path) as o:
            ref = {k: r[k] for k in r.files}
            other = {k: o[k] for k in o.files}
    except (OSError, ValueError) as exc:
        return {"model": model, "ok": False, "status": "failed", "max_abs_diff": None, "checks": [],
                "error": f"could not read the parity arrays: {exc}", "likely_cause": None}
    return compare(model, ref, other)


def skipped(model: str, reason: str, status: str = "skipped") -> dict:
    return {"model": model, "ok": False, "status": status, "max_abs_diff": None, "checks": [],
            "error": reason, "likely_cause": None}


def summary_line(p: dict) -> str:
    if p.get("status") != "ok" and not p.get("checks"):
        return f"{p['model']}: {p.get('status')} ({p.get('error')})"
    parts = [f"{c['name']} {c['value']:.6f}" if c["metric"] == "cosine_similarity"
             else f"{c['name']} {c['value']:.2e}" for c in p["checks"]]
    return f"{p['model']}: {'pass' if p['ok'] else 'FAIL'} ({'; '.join(parts)})"


def find_optional(path: Optional[str]) -> Optional[Path]:
    return Path(path) if path and Path(path).is_file() else None
