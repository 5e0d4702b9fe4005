"""The requirements the decision kill tests build: a PyTorch-expert team on H100s (the knowledge base's
best-documented accelerator), with the parts each test varies given by the test."""

from __future__ import annotations

from typing import Optional

from advisor.requirements import Requirements, parse_requirements


def h100_team(
    *,
    name: str,
    model: dict,
    workload: dict,
    devices: int = 8,
    team_size: int = 5,
    network: Optional[str] = None,
    **parts: dict,
) -> Requirements:
    """Requirements of a production team (PyTorch expert, MindSpore basic) training on `devices` H100s and
    deploying to NVIDIA servers; `parts` adds top-level sections (needs, serving)."""
    hardware = {"available": ["nvidia"], "training_target": "nvidia", "accelerator": "H100", "devices": devices}
    if network:
        hardware["network"] = network
    return parse_requirements(
        {
            "name": name,
            "stage": "production",
            "team": {"pytorch": "expert", "mindspore": "basic", "size": team_size},
            "hardware": hardware,
            "deployment": {"targets": ["nvidia-server"]},
            "model": model,
            "workload": workload,
            **parts,
        }
    )
