"""Scan calibration: `advisor scan` on public projects against the engineer's estimates written before
each scan (benchmarks/scan_calibration.md). Prints, per project: the scan's range, the engineer's, the
ratio of midpoints (scan / engineer) and whether the two ranges share hours.

    .venv/bin/python benchmarks/scan_calibration.py ROOT

Also printed: the largest item of each estimate (the one the engineer must agree is real and required),
and the ports offered.

ROOT holds one folder per project, named as in ENGINEER (owner+name), read with `git archive`; none
of their code is in this repository. A folder that is absent is skipped (said so).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from advisor.scan import scan_path  # noqa: E402

# The engineer's ranges (h), copied from benchmarks/scan_calibration.md where each was written first.
ENGINEER = {
    "kuangliu+pytorch-cifar": (16, 40),
    "karpathy+nanoGPT": (24, 56),
    "huggingface+pytorch-image-models": (1600, 3200),
    "facebookresearch+detectron2": (1600, 3200),
    "ultralytics+yolov5": (240, 480),
    "lucidrains+denoising-diffusion-pytorch": (200, 360),
    "yunjey+pytorch-tutorial": (36, 100),
    "facebookresearch+Mask2Former": (320, 640),
    "openai+whisper": (80, 150),
    "tloen+alpaca-lora": (56, 120),
    "mindspore-lab+mindnlp": (0, 0),
    "mindspore-lab+mindcv": (0, 0),
    # round 5, written before the first scan
    "open-mmlab+mmyolo": (680, 1250),
    "Lightning-AI+litgpt": (600, 980),
    "guoyww+AnimateDiff": (200, 360),
    "facebookresearch+sam2": (380, 650),
}


def compare(scan: tuple[float, float], engineer: tuple[float, float]) -> tuple[float | None, bool]:
    """(ratio of midpoints, ranges overlap). A zero engineer range has no ratio: it overlaps only at 0."""
    mid_e = sum(engineer) / 2
    ratio = sum(scan) / 2 / mid_e if mid_e else None
    return ratio, scan[0] <= engineer[1] and engineer[0] <= scan[1]


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/scancal")
    print(f"{'project':42} {'scan (h)':>13} {'engineer':>11} {'ratio':>6} overlap  risk    route")
    for name, eng in ENGINEER.items():
        folder = root / name
        if not folder.is_dir():
            print(f"{name:42} (not under {root})")
            continue
        t0 = time.monotonic()
        r = scan_path(folder)
        took = time.monotonic() - t0
        ratio, overlap = compare(r.effort_hours, eng)
        lo, hi = r.effort_hours
        said = f"{ratio:.2f}" if ratio is not None else "-"
        print(
            f"{name:42} {lo:6.0f}-{hi:<6.0f} {eng[0]:5d}-{eng[1]:<5d} {said:>6} {'yes' if overlap else 'NO':7} "
            f"{r.risk:7} {r.route} ({took:.1f} s)"
        )
        items = r.effort_breakdown.items if r.effort_breakdown else []
        if items:
            top = items[0]
            print(f"{'':42} largest: {top.item} {top.effort_hours[0]:.0f}-{top.effort_hours[1]:.0f} h")
        for o in r.ports:
            print(f"{'':42} port: {o.port} has {', '.join(o.covered) or '-'}; lacks {', '.join(o.missing) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
