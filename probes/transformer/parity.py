"""GPT parity across frameworks (numpy only; the parent never imports a framework): logits, loss
and gradients for the same weights and batch, and the parameters after one SGD step.

Tolerances follow from fp32 arithmetic as probes.training.parity's do (same u, lambda, step
roundings): bound = LAMBDA x u x sqrt(K) x sqrt(D), K the longest reduction on the path and D the
matmuls the error passes through.
- forward (logits, loss): K = max(hidden, 4 hidden (the MLP's second matmul), seq (the attention's
  weighted sum and softmax), vocab (the loss's log-sum-exp)); D = 6 per block (qkv, scores, A V,
  proj, fc, proj) + 1 (the tied head).
- gradients (max relative error per tensor, as LeNet's: GELU, softmax and LayerNorm are smooth,
  there is no ReLU whose sign flips): K also covers the weight gradients' sums over batch x seq
  tokens and the head's input gradient over vocab; D doubles (forward + backward).
- after one step: SGD momentum's first step is p1 = p0 - lr g in both (torch's buffer starts at g,
  MindSpore's accumulation at 0 then + g), so (p1_other - p1_ref) + lr (g_other - g_ref) is zero up
  to STEP_ROUNDINGS roundings.
"""

from __future__ import annotations

import math

import numpy as np

from probes.training.parity import _abs_check, _check, bounds
from probes.transformer import spec

LIKELY_CAUSE = {
    "logits": "the networks differ: layer-norm epsilon, GELU approximation, the causal mask, the tied head, "
    "or weights not mapped onto the same parameters",
    "loss": "the loss differs (reduction, padding weights, label dtype)",
    "gradients": "the backward pass differs (tied-head gradient not summed, an op with a different gradient)",
    "params_after_step": "the optimizer differs (momentum convention, weight decay, learning rate)",
}


def tolerances(s: spec.Shape, batch: int) -> dict:
    k_fwd = max(s.hidden, spec.MLP_RATIO * s.hidden, s.seq, s.vocab)
    k_bwd = max(k_fwd, batch * s.seq)
    depth = 6 * s.layers + 1
    return bounds(
        k_fwd,
        k_bwd,
        depth,
        batch,
        depth_name="matmuls_on_path",
        formula="LAMBDA * u * sqrt(K) * sqrt(D) (gradients: 2D); step: STEP_ROUNDINGS * u",
    )


def _step_check(ref: dict, other: dict, names: list[str], tol: float) -> dict:
    worst, scale, lr = 0.0, 1.0, spec.LR
    for n in names:
        pr, po = ref["after/" + n].astype(np.float64), other["after/" + n].astype(np.float64)
        gr, go = ref["grad/" + n].astype(np.float64), other["grad/" + n].astype(np.float64)
        if pr.shape != po.shape or gr.shape != go.shape:
            return _check("params_after_step", "shape", math.inf, 0.0, False, detail=f"{n}: {pr.shape} vs {po.shape}")
        worst = max(worst, float(np.max(np.abs((po - pr) + lr * (go - gr)))))
        scale = max(scale, float(np.max(np.abs(pr) + np.abs(po) + lr * (np.abs(gr) + np.abs(go)))))
    return _check("params_after_step", "max_abs_residual", worst, tol * scale, worst <= tol * scale, learning_rate=lr)


def compare(s: spec.Shape, ref: dict, other: dict) -> dict:
    """ref = PyTorch's arrays, other = MindSpore's. {ok, status, checks, tolerance_derivation, ...}"""
    missing = sorted(set(ref) ^ set(other))
    if missing:
        return failed(f"the two frameworks wrote different arrays: {', '.join(missing[:5])}")
    batch = int(ref["logits"].shape[0])
    tol = tolerances(s, batch)
    checks = [
        _abs_check("logits", [ref["logits"]], [other["logits"]], tol["forward"]),
        _abs_check("loss", [ref["loss"]], [other["loss"]], tol["forward"]),
    ]
    worst, where = 0.0, ""
    grads = sorted(k for k in ref if k.startswith("grad/"))
    for k in grads:
        if ref[k].shape != other[k].shape:
            checks.append(_check("gradients", "shape", math.inf, 0.0, False, detail=k))
            break
        rel = float(np.max(np.abs(ref[k].astype(np.float64) - other[k]))) / (float(np.max(np.abs(ref[k]))) + 1e-30)
        if rel > worst:
            worst, where = rel, k[len("grad/") :]
    else:
        checks.append(
            _check("gradients", "max_rel_err", worst, tol["gradient"], worst <= tol["gradient"], worst_tensor=where)
        )
    checks.append(_step_check(ref, other, [k[len("grad/") :] for k in grads], tol["step"]))
    bad = [c["name"] for c in checks if not c["ok"]]
    return {
        "ok": not bad,
        "status": "ok" if not bad else "failed",
        "batch_size": batch,
        "checks": checks,
        "tolerance_derivation": tol["derivation"],
        "conventions": list(spec.CONVENTIONS),
        "error": None if not bad else f"mismatch in {', '.join(bad)}",
        "likely_cause": LIKELY_CAUSE.get(bad[0]) if bad else None,
    }


def compare_files(s: spec.Shape, ref_path: str, other_path: str) -> dict:
    try:
        with np.load(ref_path) as r, np.load(other_path) as o:
            ref, other = {k: r[k] for k in r.files}, {k: o[k] for k in o.files}
    except (OSError, ValueError) as exc:
        return failed(f"could not read the parity arrays: {exc}")
    return compare(s, ref, other)


def failed(reason: str, status: str = "failed") -> dict:
    return {"ok": False, "status": status, "checks": [], "error": reason, "conventions": list(spec.CONVENTIONS)}
