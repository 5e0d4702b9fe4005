"""The Recommendation screen shows the verdict the real decision model reaches, not a frozen one.

The TUI snapshots show a frozen report (tests/fixtures/tui/report.json) so their pixels do not move with
every knowledge-base edit; no decision bug can reach those pictures. Here the app runs with its real
report builder on the bundled example, the fixture host and the cached probe suite, and the verdict,
margin and evidence grade on the screen are compared with a report built apart, through the same public
decision model, from the same inputs; the margin is checked against the two totals it is the difference
of, and the workflows' order against the scores.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import FakeLauncher, cached_suite, host_report  # noqa: E402
from fixtures.tui.pilot import run_async, settle, wait_for  # noqa: E402

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("ADVISOR_ASCII", "0")


def _model_report():
    import knowledge
    from advisor.measurements import Measured, Measurements
    from advisor.report import build_report
    from advisor.requirements import load_requirements

    measurements = Measurements(host=host_report(), probes={"training": Measured(cached_suite(), "cache")})
    return build_report(load_requirements(EXAMPLE), measurements, kb=knowledge.load())


def _shown(renderable) -> str:
    """The text a renderable paints, styles dropped, one line per terminal line (wide: no wrapping)."""
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=400, color_system=None, legacy_windows=False).print(renderable)
    return " ".join(line.strip() for line in out.getvalue().splitlines())


@run_async
async def test_the_recommendation_screen_shows_the_models_verdict_margin_and_grade():
    from advisor.vocabulary import workflow_label
    from tui.app import make_app

    expected = _model_report()
    rec = expected.recommendation
    totals = {s.workflow: s.total for s in expected.scores if s.eligible}
    top, runner_up = sorted(totals, key=totals.get, reverse=True)[:2]
    # The report's own decision holds together: the winner is the top eligible total and the margin is
    # the distance to the runner-up (the margin is stored to 3 decimals).
    assert (rec.workflow, rec.runner_up) == (top, runner_up)
    assert rec.margin == pytest.approx(totals[top] - totals[runner_up], abs=5e-4)
    evidence = rec.confidence_parts.evidence

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        cached_probes=cached_suite,
        save_probes=False,
        requirements_path=str(EXAMPLE),
        initial_mode="recommendation",
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.state.report is not None, timeout=120, what="the report")
        await settle(pilot)
        shown_report = app.state.report
        verdict = _shown(app.screen.query_one("#rec-verdict").content)

    # The app built the same decision as the model built apart from the same inputs.
    assert shown_report.recommendation.model_dump(exclude={"summary"}) == rec.model_dump(exclude={"summary"})
    assert {s.workflow: s.total for s in shown_report.scores} == {s.workflow: s.total for s in expected.scores}
    # And the screen says it: who, by how much over whom, how sure, on what grade of evidence.
    headline = (
        f"{workflow_label(top)}, {totals[top]:.1f}/100, {rec.margin:.1f} points ahead of "
        f"{workflow_label(runner_up)}; confidence {rec.confidence}."
    )
    assert headline in verdict
    assert f"Confidence {rec.confidence}, because:" in verdict
    assert f"margin {rec.margin:.1f} points" in verdict
    assert f"{evidence.label} decisive evidence ({evidence.score:.1f}/5)" in verdict
