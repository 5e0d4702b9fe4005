"""The quick profile on a loaded 2-core host: two rounds graded by the noise gate could leave a side with
no usable run (the first report said "not scored"); it now spends one extra round, at twice the budget,
while a comparison is undecided, and when a side still has no usable run the suite says first what to
do. The runs are fabricated timing series, graded by the real rule (probes.quality): no child, no clock."""

from __future__ import annotations

import pytest

from probes.training import runner
from probes.training.models import QUICK, ProbeConfig, ProbeRun

BATCH = 32
STEPS = 8  # steps per timing sample


def series(step_ms: float, jitter: float) -> list[float]:
    """30 samples alternating around `step_ms` by `jitter` (a share): deterministic noise."""
    return [step_ms * (1.0 + jitter * (-1) ** i) for i in range(30)]


# Per (round, framework): the step time, its spread and the other processes' share of the run's threads
# a loaded host left: round 2 (the second) is where another session took the core from MindSpore.
BUSY = {"contention": 0.6, "foreign_cores": 1.6}  # above the gate's unusable bound (50%)
CALM = {"contention": 0.0, "foreign_cores": 0.2}


def fabricated(loads: dict[tuple[int, str], dict]):
    def run_job(job, config, env, on_event, cancel, index, total) -> ProbeRun:
        load = dict(loads.get((job.repeat, job.framework), CALM))
        # PyTorch eager 2.5x MindSpore graph's rate; "slower" stretches one round's steps (a calm round
        # that still disagrees with the others)
        step = (1.0 if job.framework == "pytorch" else 2.5) * load.pop("slower", 1.0)
        run = ProbeRun(
            id=job.id,
            framework=job.framework,
            mode=job.mode,
            model=job.model,
            batch_size=BATCH,
            status="ok",
            images_per_second=BATCH / step * 1e3,
            sample_step_ms=series(step, 0.03),
            steps_per_sample=STEPS,
            settings={"threads": job.threads, **load},
        )
        run.settings.update(round=job.repeat, budget=job.budget)
        runner.quality.assess(run)
        return run

    return run_job


@pytest.fixture
def loaded_host(monkeypatch):
    monkeypatch.setattr(runner, "idle_cores", lambda window=0.5: 0.4)
    monkeypatch.setattr(runner, "usable_cores", lambda: 2)
    monkeypatch.setattr(
        runner, "installed_frameworks", lambda: {fw: {"installed": True, "version": "test"} for fw in runner.WORKER}
    )

    def use(loads):
        monkeypatch.setattr(runner, "_run_job", fabricated(loads))
        config = ProbeConfig(**{**QUICK, "parity": False, "gemm": False}, frameworks=["pytorch", "mindspore"])
        return runner.run_suite(config)

    return use


def test_a_round_lost_to_the_load_is_made_up_by_one_more_round_at_twice_the_budget(loaded_host):
    """Round 2's MindSpore run unusable: two rounds left one usable pair, no interval, undecided."""
    suite = loaded_host({(1, "mindspore"): BUSY})
    (log,) = suite.adaptation
    assert log["rounds"] == 3 and log["budgets"] == [2.0, 2.0, 4.0] and log["stopped"].startswith("stop rule held")
    (c,) = suite.comparisons
    assert c.decidable and c.pairs == 2 and c.ratio == pytest.approx(2.5)
    assert not any(w.startswith("not scored") for w in suite.warnings)


def test_a_side_unusable_in_both_first_rounds_gets_a_usable_third(loaded_host):
    """MindSpore unusable in rounds 1 and 2: with two rounds it had no usable run, and nothing was scored."""
    suite = loaded_host({(0, "mindspore"): BUSY, (1, "mindspore"): BUSY})
    ms = next(r for r in suite.runs if r.framework == "mindspore")
    assert ms.quality != "unusable" and len(ms.repeats) == 3
    assert suite.adaptation[0]["rounds"] == 3


def test_the_extra_round_is_the_cap_and_the_suite_says_first_what_to_do(loaded_host):
    suite = loaded_host({(r, "mindspore"): BUSY for r in range(5)})
    assert suite.adaptation[0]["rounds"] == QUICK["max_repeat"] == 3
    assert suite.adaptation[0]["stopped"].startswith("cap reached (3 rounds")
    first = suite.warnings[0]
    assert first.startswith("not scored: mindspore-graph-lenet-bs32 graded unusable in all 3 round(s)")
    assert "(other processes used 1.6 of 2 cores)" in first
    assert "rerun when the host is quieter" in first and "--budget" in first and "--max-repeat" in first


def test_usable_rounds_that_disagree_are_not_scored_and_the_suite_says_so_first(loaded_host):
    """Each MindSpore round usable alone, but one ran at a third of the others' rate: the merged run is graded
    unusable by the spread between its rounds, and the first note names it, why and what to do, also when
    the host was busy before the probe (that note comes after)."""
    suite = loaded_host({(1, "mindspore"): {**CALM, "slower": 3.0}})
    ms = next(r for r in suite.runs if r.framework == "mindspore")
    assert ms.quality == "unusable" and all(q != "unusable" for q in ms.quality_reasons)
    first = suite.warnings[0]
    assert first.startswith("not scored: mindspore-graph-lenet-bs32 graded unusable (mindspore-graph-lenet-bs32: ")
    # rounds of 12,800, 4,267 and 12,800 img/s: (12,800 - 4,267) / 12,800 = 67% around their median
    assert (
        "mindspore-graph-lenet-bs32: its 3 usable rounds spread 67% around their median (unusable above 50%)" in first
    )
    assert "rerun when the host is quieter" in first


@pytest.mark.slow
def test_a_real_quick_profile_gives_a_graded_side_or_says_what_to_do(tmp_path):
    """The real children, as `advisor probe --quick` runs them (set-up children left out to keep it near a
    minute): whatever the host's load, every framework's run is graded usable, or the suite's first note
    says which run is not scored and what to do. No time is asserted (the host is shared)."""
    fws = runner.installed_frameworks()
    if not all(fws[fw]["installed"] for fw in ("pytorch", "mindspore")):
        pytest.skip("needs both PyTorch and MindSpore")
    config = ProbeConfig(
        **{**QUICK, "parity": False, "gemm": False},
        frameworks=["pytorch", "mindspore"],
        compile_cache_dir=str(tmp_path),
        timeout=900.0,  # a safety net for a hung child on a busy host, not a measurement
    )
    suite = runner.run_suite(config)
    assert all(r.status == "ok" for r in suite.runs), [(r.id, r.error) for r in suite.runs]
    log = suite.adaptation[0]
    assert 2 <= log["rounds"] <= QUICK["max_repeat"]
    unscored = [r.id for r in suite.runs if r.quality == "unusable"]
    if unscored:
        assert suite.warnings[0].startswith(f"not scored: {', '.join(unscored)} graded unusable")
        assert "rerun when the host is quieter" in suite.warnings[0]
    else:
        assert not suite.warnings or not suite.warnings[0].startswith("not scored")


def test_the_last_progress_line_says_what_to_do_when_a_run_is_not_scored(tmp_path, monkeypatch):
    """Right above the result the CLI said only "finished in 2 min"; the table's notes came after the
    per-run lines. A run graded unusable in every round now ends the progress with the reason and the way out."""
    import io

    from advisor.estimates import Load
    from advisor.progress import probe_progress
    from probes.base import ProbeEvent  # the registry's event: the run as the TUI and the benchmark get it

    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    config = ProbeConfig(**QUICK, frameworks=["pytorch", "mindspore"], compile_cache_dir=str(tmp_path))
    grades = {"pytorch-eager-lenet-bs32": ["unusable", "unusable"], "mindspore-graph-lenet-bs32": ["noisy", "unusable"]}

    def rounds(on_event, grades):
        for n in range(2):
            for rid, seen in grades.items():
                on_event(ProbeEvent(kind_name="training", run_id=rid, kind="start"))
                run = {"status": "ok", "quality": seen[n]}
                on_event(ProbeEvent(kind_name="training", run_id=rid, kind="done", message="ok", run=run))

    stream = io.StringIO()
    with probe_progress("training", config, stream=stream, enabled=False) as on_event:
        rounds(on_event, grades)
    last = " ".join(stream.getvalue().split("advisor: training: finished in")[-1].split())  # wrapped at words
    assert last.split("; ")[1].startswith("not scored: pytorch-eager-lenet-bs32 graded unusable in every round")
    assert "mindspore" not in last and "rerun when it is quieter" in last
    stream = io.StringIO()
    with probe_progress("training", config, stream=stream, enabled=False) as on_event:
        rounds(on_event, {rid: ["noisy", "noisy"] for rid in grades})
    assert "not scored" not in stream.getvalue().splitlines()[-1]
