"""Compliance: domestic substitution, hardware and framework mandates scored apart."""

from __future__ import annotations

from advisor.decision.constants import Consts
from advisor.decision.context import Context
from advisor.decision.criteria.common import Scored, clamp
from advisor.decision.evidence import req_evidence
from advisor.decision.findings import said
from advisor.requirements import Requirements


def mandate_field(req: Requirements, which: str) -> str:
    explicit = req.needs.domestic_hardware if which == "hardware" else req.needs.domestic_framework
    level = req.needs.hardware_mandate if which == "hardware" else req.needs.framework_mandate
    return f"needs.domestic_{which}={level}" if explicit is not None else f"needs.domestic_substitution={level}"


def compliance_score(wf: str, ctx: Context, k: Consts) -> Scored:
    """Domestic substitution, split into hardware (training hardware and deployment targets) and
    framework: each part counts only where the team has that mandate."""
    req, route = ctx.req, ctx.routes[wf]
    hw_level, fw_level = req.needs.hardware_mandate, req.needs.framework_mandate
    ev = [
        req_evidence(
            "needs.domestic_hardware",
            hw_level,
            said("crit_compliance.evidence.mandate", which="hardware", level=hw_level),
        ),
        req_evidence(
            "needs.domestic_framework",
            fw_level,
            said("crit_compliance.evidence.mandate", which="framework", level=fw_level),
        ),
    ]
    if hw_level == "none" and fw_level == "none":
        return 100.0, ev, said("crit_compliance.none")
    hw = {"ascend": 1.0, "cpu": 0.5, "nvidia": 0.0}[route.target]
    fw = 1.0 if route.framework == "mindspore" else 0.0
    dep = sum(1 for t in req.deployment.targets if t != "nvidia-server") / len(req.deployment.targets)
    scope = req.needs.domestic_scope
    parts = []
    shares = []
    if hw_level != "none" and "training" in scope:
        parts.append((hw, k["COMPLIANCE_HARDWARE_WEIGHT"], "hardware"))
        shares.append("COMPLIANCE_HARDWARE_WEIGHT")
    if hw_level != "none" and "deployment" in scope:
        parts.append((dep, k["COMPLIANCE_DEPLOYMENT_WEIGHT"], "deployment"))
        shares.append("COMPLIANCE_DEPLOYMENT_WEIGHT")
    if fw_level != "none":
        parts.append((fw, k["COMPLIANCE_FRAMEWORK_WEIGHT"], "framework"))
        shares.append("COMPLIANCE_FRAMEWORK_WEIGHT")
    den = sum(w for _, w, _ in parts) or 1.0
    score = 100 * sum(v * w for v, w, _ in parts) / den
    partial = scope != ["training", "deployment"]
    if partial:
        ev.append(
            req_evidence("needs.domestic_scope", list(scope), said("crit_compliance.evidence.scope", scope=scope))
        )
    # Every deduction is named in the note, so the score can be recomputed from what the report says.
    hybrid_penalty = unmet_penalty = None
    if wf == "hybrid" and fw_level != "none":
        pen = k["HYBRID_COMPLIANCE_REQUIRED"] if fw_level == "required" else k["HYBRID_COMPLIANCE_PREFERRED"]
        if pen:
            score -= pen
            hybrid_penalty = pen
    if "required" in (hw_level, fw_level) and score < 100:
        score -= k["COMPLIANCE_UNMET_PENALTY"]
        unmet_penalty = k["COMPLIANCE_UNMET_PENALTY"]
    note = said(
        "crit_compliance.note",
        parts=[(kind, value, w / den) for value, w, kind in parts],
        shares=shares,
        scope=scope if partial else None,
        hybrid_penalty=hybrid_penalty,
        unmet_penalty=unmet_penalty,
    )
    ev.append(
        req_evidence(
            "hardware.training_target", route.target, said("crit_compliance.evidence.target", target=route.target)
        )
    )
    return clamp(score), ev, note
