"""The vendor's fp32 peak of the accelerator a probe ran on, and the runs' MFU against it.

Judging, so it lives here: the probe records what it measured (device name, achieved GFLOP/s) and
never loads the knowledge base; the command that shows or judges a suite attaches the datasheet
figure, with its source and confidence, from the knowledge base it was given."""

from __future__ import annotations

from typing import Any, Optional

from advisor.decision.probe_fields import peak as read_peak
from advisor.decision.probe_fields import run_settings


def vendor_peak(suite: Any, kb: Any) -> Optional[dict]:
    """{accelerator, fp32_gflops, source, confidence} for the first accelerator of the suite's
    device runs that the knowledge base knows, else None (CPU-only suites have none)."""
    names = {run_settings(r.settings).device_name for r in suite.runs if r.device in ("cuda", "npu")} - {None}
    for name in sorted(names):
        acc = kb.find_accelerator(name)
        if acc is not None and acc.fp32_tflops is not None:
            return {
                "accelerator": acc.id,
                "fp32_gflops": acc.fp32_tflops.value * 1e3,
                "source": acc.fp32_tflops.source,
                "confidence": acc.fp32_tflops.confidence,
            }
    return None


def attach(suite: Any, kb: Any) -> Any:
    """Set suite.vendor_peak and each device run's mfu_vendor (achieved over the vendor peak).
    A suite that already carries a peak (an older file) keeps it. Returns the suite."""
    if suite.vendor_peak is None:
        suite.vendor_peak = vendor_peak(suite, kb)
    peak = read_peak(suite.vendor_peak).fp32_gflops
    for run in suite.runs:
        if peak and run.device in ("cuda", "npu") and run.achieved_gflops:
            run.mfu_vendor = run.achieved_gflops / peak
    return suite
