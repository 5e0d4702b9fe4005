"""A pitfall's reason names the project's own value, not the alternatives of the condition it matched
(the register printed "applies because deployment.targets=ascend-server|edge-ascend|mobile" for a team
that deploys to one Ascend server)."""

from __future__ import annotations

from pathlib import Path

import knowledge
from advisor.measurements import Measurements
from advisor.report import build_report
from advisor.requirements import load_requirements
from knowledge.conditions import observed

ROOT = Path(__file__).resolve().parents[1]


def test_observed_gives_the_members_that_matched_and_plain_values_as_they_are():
    req = {"deployment": {"targets": ["cloud-gpu", "edge-ascend", "mobile"]}, "hardware": {"devices": 8.0}}
    assert observed("deployment.targets=ascend-server|edge-ascend|mobile", req) == (
        "deployment.targets",
        "edge-ascend, mobile",
    )
    assert observed("deployment.targets!=ascend-server", req) == (
        "deployment.targets",
        "cloud-gpu, edge-ascend, mobile",
    )
    assert observed("hardware.devices", req) == ("hardware.devices", "8")
    assert observed("needs.huggingface", req) == ("needs.huggingface", "none")


def test_the_register_names_the_projects_target_not_the_conditions_alternatives():
    kb = knowledge.load()
    req = load_requirements(ROOT / "examples" / "prototype-then-ascend.yaml")
    assert [t for t in req.deployment.targets] == ["ascend-server"]
    report = build_report(req, Measurements(), kb=kb, created_at="2026-12-01T00:00:00Z")
    (item,) = [p for p in report.pitfalls if p.id == "model-conversion-chain"]
    condition = next(c for c in item.conditions if c.startswith("deployment.targets="))
    alternatives = condition.split("=", 1)[1].split("|")
    assert len(alternatives) > 1 and "ascend-server" in alternatives
    assert "deployment.targets=ascend-server" in item.likelihood_why
    assert not any(alt in item.likelihood_why for alt in alternatives if alt != "ascend-server")
