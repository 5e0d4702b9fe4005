"""A kernel the scan found only on an optional path (an availability guard with a fallback) or in an
excluded file is no kernel a port must carry: the decision model does not count it, and the risk
register raises no risk for it."""

from __future__ import annotations

from advisor.decision.criteria.scan_parts import scan_kernels
from advisor.scan.models import Hazard, HazardSummary, ScanResult


def _kernel(optional: bool = False, excluded: bool = False) -> Hazard:
    return Hazard(
        kind="custom_extension",
        file="kernels.py",
        line=1,
        message="a Triton kernel",
        fix="rewrite",
        optional=optional,
        excluded=excluded,
    )


def test_only_required_kernels_count():
    scan = ScanResult(path="p", hazards=[_kernel(), _kernel(optional=True), _kernel(excluded=True)])
    assert scan_kernels(scan) == 1
    assert scan_kernels(ScanResult(path="p", hazards=[_kernel(optional=True)])) == 0
    assert scan_kernels(None) == 0


def test_register_skips_a_kind_found_only_on_optional_paths():
    from advisor.measurements import Measurements
    from advisor.report import build_report
    from advisor.requirements import parse_requirements
    from advisor.review.risks import register
    import knowledge

    summary = HazardSummary(
        kind="custom_extension",
        count=3,
        files=1,
        risk="high",
        fix="rewrite",
        effort_hours=(20.0, 40.0),
        effort_basis="per kernel",
        optional=2,
        excluded=1,
    )
    req = parse_requirements(
        {
            "name": "t",
            "hardware": {"available": ["ascend"], "training_target": "ascend"},
            "deployment": {"targets": ["ascend-server"]},
        }
    )
    report = build_report(
        req, Measurements(scan=ScanResult(path="p", hazard_summary=[summary])), kb=knowledge.load(), created_at="x"
    )
    reg = register(report)
    assert not any("custom_extension" in r.scan for r in reg.risks + reg.also_known)
    # one required place of the same kind is a risk again
    required = summary.model_copy(update={"count": 4})
    report = build_report(
        req, Measurements(scan=ScanResult(path="p", hazard_summary=[required])), kb=knowledge.load(), created_at="x"
    )
    found = [r for r in register(report).risks + register(report).also_known if "custom_extension" in r.scan]
    assert found and "1 place(s)" in found[0].scan
