"""Starting requirements before the user has written any: the model's defaults, with the hardware
fields taken from what the host check saw (pure: no Textual)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from tui.form_spec import set_path

if TYPE_CHECKING:
    from probes.check.models import CheckReport


def blank_requirements() -> dict:
    """A valid starting point before any file or host check: the model's own defaults."""
    return {"name": "My ML project", "hardware": {"available": ["cpu"]}, "deployment": {"targets": ["cpu-server"]}}


def host_defaults(report: CheckReport) -> dict:
    """Requirement values implied by the host check (what the team can train on here)."""
    accelerators = report.accelerators
    vendors = [a.vendor for a in accelerators]
    available: list[str] = []
    if "nvidia" in vendors:
        available.append("nvidia")
    if "huawei" in vendors:
        available.append("ascend")
    available.append("cpu")
    out: dict = {"hardware.available": available}
    if accelerators:
        first = accelerators[0]
        kind = "ascend" if first.vendor == "huawei" else "nvidia"
        out["hardware.training_target"] = kind
        out["hardware.accelerator"] = first.name or None
        out["hardware.devices"] = max(1, sum(1 for a in accelerators if a.vendor == first.vendor))
        out["deployment.targets"] = ["ascend-server" if kind == "ascend" else "nvidia-server"]
    else:
        out["hardware.training_target"] = "cpu"
        out["deployment.targets"] = ["cpu-server"]
    return out


def starting_requirements(report: Optional[CheckReport]) -> dict:
    data = blank_requirements()
    if report is not None:
        for key, value in host_defaults(report).items():
            if value is not None:
                set_path(data, tuple(key.split(".")), value)
    return data
