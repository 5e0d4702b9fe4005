"""Team: the team's skill in the workflow's framework(s); the hybrid keeps two stacks."""

from __future__ import annotations

from advisor.decision.constants import Consts
from advisor.decision.criteria.common import Scored, clamp, hybrid_share, skill
from advisor.decision.evidence import req_evidence
from advisor.requirements import Requirements


def team_score(wf: str, req: Requirements, k: Consts) -> Scored:
    pt, ms = skill(req.team.pytorch), skill(req.team.mindspore)
    base, step = k["TEAM_SKILL_BASE"], k["TEAM_SKILL_STEP"]
    pt_score, ms_score = clamp(base + step * pt), clamp(base + step * ms)
    ev_pt = req_evidence("team.pytorch", req.team.pytorch, f"PyTorch skill {req.team.pytorch}")
    ev_ms = req_evidence("team.mindspore", req.team.mindspore, f"MindSpore skill {req.team.mindspore}")
    if wf == "pytorch":
        return pt_score, [ev_pt], f"{base:g} + {step:g} per PyTorch skill level"
    if wf == "mindspore":
        return ms_score, [ev_ms], f"{base:g} + {step:g} per MindSpore skill level"
    share = hybrid_share(req.stage, "team", k)
    two = k["HYBRID_TWO_STACKS"]
    score = share * pt_score + (1 - share) * ms_score - two
    ev = [ev_pt, ev_ms]
    note = f"needs both skills: {share:.0%} PyTorch, {1 - share:.0%} MindSpore, -{two:g} for keeping two stacks (HYBRID_TWO_STACKS)"
    if req.team.size <= 2:
        small = k["SMALL_TEAM_PENALTY"]
        score -= small
        ev.append(req_evidence("team.size", req.team.size, "two stacks to keep up with for a team of two or fewer"))
        note += f"; -{small:g} for a team of <= 2 carrying two stacks"
    return clamp(score), ev, note
