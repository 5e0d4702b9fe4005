"""Team: the team's skill in the workflow's framework(s); the hybrid keeps two stacks."""

from __future__ import annotations

from advisor.decision.constants import Consts
from advisor.decision.criteria.common import Scored, clamp, hybrid_share, skill
from advisor.decision.evidence import req_evidence
from advisor.decision.findings import said
from advisor.requirements import Requirements


def team_score(wf: str, req: Requirements, k: Consts) -> Scored:
    pt, ms = skill(req.team.pytorch), skill(req.team.mindspore)
    base, step = k["TEAM_SKILL_BASE"], k["TEAM_SKILL_STEP"]
    pt_score, ms_score = clamp(base + step * pt), clamp(base + step * ms)
    pt_said = said("crit_team.evidence.skill", framework="PyTorch", level=req.team.pytorch)
    ms_said = said("crit_team.evidence.skill", framework="MindSpore", level=req.team.mindspore)
    ev_pt = req_evidence("team.pytorch", req.team.pytorch, pt_said)
    ev_ms = req_evidence("team.mindspore", req.team.mindspore, ms_said)
    if wf == "pytorch":
        return pt_score, [ev_pt], said("crit_team.one_stack", base=base, step=step, framework="PyTorch")
    if wf == "mindspore":
        return ms_score, [ev_ms], said("crit_team.one_stack", base=base, step=step, framework="MindSpore")
    share = hybrid_share(req.stage, "team", k)
    two = k["HYBRID_TWO_STACKS"]
    score = share * pt_score + (1 - share) * ms_score - two
    ev = [ev_pt, ev_ms]
    small = None
    if req.team.size <= 2:
        small = k["SMALL_TEAM_PENALTY"]
        score -= small
        ev.append(req_evidence("team.size", req.team.size, said("crit_team.evidence.small_team")))
    return clamp(score), ev, said("crit_team.two_stacks", share=share, two=two, small=small)
