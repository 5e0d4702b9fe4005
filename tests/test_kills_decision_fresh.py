"""The decision arithmetic, for real gaps a fresh mutation draw (seed 2029, taken after every other kill
test was written) found: the inter-host share of a step, the stack a hybrid's PyTorch work runs on,
the schedule's stored hours, and the runs a projection may use. Each expected value is worked out in
its docstring."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from advisor.decision.communication import ScalingSpread, _inverse_share
from advisor.decision.constants import DEFAULT
from advisor.decision.criteria.ecosystem import work_stack
from advisor.decision.projections import measured_runs
from advisor.decision.schedule import schedule
from probes.training.models import ProbeRun, ProbeSuite


def test_the_link_share_of_a_slower_step_is_one_less_its_inverse_at_each_end():
    """Step ratios 3 (median), 1.5 (min), 7 (max): the link adds 1 - 1/r of the slower step: 2/3, 1/3
    and 6/7, kept to 4 places (0.6667, 0.3333, 0.8571)."""
    out = _inverse_share(ScalingSpread(median=3.0, min=1.5, max=7.0, n=3))
    assert (out.median, out.min, out.max, out.n) == (0.6667, 0.3333, 0.8571, 3)


@pytest.mark.parametrize(
    ("available", "stack"),
    [(["nvidia", "ascend"], "pytorch"), (["nvidia"], "pytorch"), (["ascend"], "torch_npu"), ([], "pytorch")],
)
def test_a_hybrids_pytorch_work_runs_on_nvidia_when_it_has_one_and_on_ascend_only_without(available, stack):
    req = SimpleNamespace(hardware=SimpleNamespace(available=available))
    assert work_stack("hybrid", req, route=None) == stack


def test_the_schedule_keeps_hours_to_two_decimals():
    """One part of 1.236-2.344 h for a team of one: hours stored as 1.24 and 2.34; weeks to three decimals
    of hours / HOURS_PER_WEEK."""
    out = schedule("pytorch", [("port", 1.236, 2.344)], team_size=1, deadline=None)
    assert out.hours == [1.24, 2.34]
    per_week = DEFAULT["HOURS_PER_WEEK"]
    assert out.weeks == [round(1.236 / per_week, 3), round(2.344 / per_week, 3)]


def _run(run_id: str, rate):
    return ProbeRun(
        id=run_id,
        framework="pytorch",
        mode="eager",
        model="lenet",
        batch_size=8,
        device="cpu",
        status="ok",
        images_per_second=rate,
    )


def test_a_run_with_no_rate_never_enters_a_projection():
    """Three ok runs: 120 img/s, no measured rate, and a slow 0.5 img/s: the two with a positive rate are
    measured runs (however slow), the one without is not."""
    suite = ProbeSuite(runs=[_run("a", 120.0), _run("b", None), _run("c", 0.5)])
    assert [m.run.id for m in measured_runs([suite])] == ["a", "c"]
