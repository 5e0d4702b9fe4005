"""`advisor probe -o FILE` writes the JSON that `advisor report --probes` reads; `--scaling` is the
scaling probe behind the same command."""

import json

import pytest

from advisor.cli import main
from probes.training.models import ProbeSuite


@pytest.mark.slow
def test_output_file_is_json_and_stdout_keeps_the_table(tmp_path, capsys):
    out = tmp_path / "probes.json"
    code = main(
        [
            "probe",
            "--frameworks",
            "pytorch",
            "--models",
            "lenet",
            "--modes",
            "eager",
            "--budget",
            "0.5",
            "--batch-size",
            "8",
            "--no-parity",
            "--no-cache",
            "--repeat",
            "1",
            "--max-repeat",
            "1",
            "-o",
            str(out),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    suite = ProbeSuite.model_validate(json.loads(out.read_text()))
    assert [r.id for r in suite.runs] == ["pytorch-eager-lenet-bs8"]
    assert suite.runs[0].status == "ok"
    assert "pytorch-eager-lenet-bs8" in captured.out and not captured.out.lstrip().startswith("{")


def test_scaling_flag_dispatches_to_the_scaling_probe(monkeypatch):
    from advisor.commands import scaling as scaling_cli

    seen = {}

    def fake_run_from_args(args):
        seen.update(ranks=args.ranks, scaling=args.scaling)
        return 0

    monkeypatch.setattr(scaling_cli, "run_from_args", fake_run_from_args)
    assert main(["probe", "--scaling", "--ranks", "1,2"]) == 0
    assert seen == {"ranks": "1,2", "scaling": True}


def test_scaling_bad_ranks_is_one_line_exit_2(capsys):
    assert main(["probe", "--scaling", "--ranks", "two"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--ranks" in err[0]


def test_the_table_gives_one_status_per_run_no_cv_without_samples_and_each_note_once():
    from advisor.render.tables.probe import ProbeTable
    from probes.training.models import PairedComparison, ProbeRun

    budget = "budget spent before the stop rule held (>= 30 samples, CV <= 5%, CI half-width <= 2%)"
    common = dict(model="lenet", batch_size=32, device="cpu", status="ok", stop_reason="budget")
    unusable = ProbeRun(
        id="mindspore-graph-lenet-bs32", framework="mindspore", mode="graph", images_per_second=1480.2,
        ci95=[1171.0, 1789.0], quality="unusable", quality_reasons=["step-time CV 86% (unusable above 50%)"],
        step_time_ms={"n": 40, "median": 16.7, "cv": 0.86}, samples=40,
        warnings=[budget, "noisy: step-time CV 86% (>= 10%)"], **common,
    )  # fmt: skip
    one_sample = ProbeRun(
        id="pytorch-eager-lenet-bs32", framework="pytorch", mode="eager", images_per_second=2216.04,
        quality="noisy", quality_reasons=["1 timing samples: too few for an interval"],
        step_time_ms={"n": 1, "median": 14.4, "cv": 0.0}, samples=1, warnings=[budget], **common,
    )  # fmt: skip
    comparison = PairedComparison(
        model="lenet", a=one_sample.id, b=unusable.id, ratio=1.5, pairs=0, quality="unusable",
        reasons=["mindspore-graph-lenet-bs32 is unusable", "not decidable here: quiet the host"],
    )  # fmt: skip
    text = ProbeTable(width=200).format(ProbeSuite(runs=[one_sample, unusable], comparisons=[comparison]))
    rows = {line.split()[0]: line.split() for line in text.splitlines() if line.startswith(("pytorch-", "mindspore-"))}
    assert rows["mindspore-graph-lenet-bs32"][1] == "unusable"  # its grade, never "ok ... (unusable)"
    assert rows["pytorch-eager-lenet-bs32"][1] == "noisy"
    assert "2,216" in rows["pytorch-eager-lenet-bs32"] and "0%" not in rows["pytorch-eager-lenet-bs32"]  # no CV of 1
    assert text.index("Summary:") < text.index("pytorch-eager-lenet-bs32  ")  # the answer before the table
    assert text.count(budget) == 1  # one note naming both runs
    assert "CV 86%" in text and text.count("86%") == 2  # the CV column and the grade's reason: not a third time


def test_the_rounds_line_counts_a_lone_unstable_run_as_a_run_not_a_comparison():
    """One framework and one mode (PyTorch alone on a GPU host, say): an extra round was for the run's
    grade; nothing was compared."""
    from advisor.render.tables.probe import ProbeTable

    def rounds_line(stopped: str) -> str:
        log = {"model": "lenet", "rounds": 3, "budgets": [2, 2, 4], "threads": [16], "stopped": stopped}
        text = ProbeTable(width=200).format(ProbeSuite(adaptation=[log]))
        return next(line for line in text.splitlines() if line.strip().startswith("lenet: 3 round(s)"))

    lone = rounds_line("cap reached (3 rounds, budget up to 4 s): still undecided: pytorch-eager-lenet-bs32")
    assert lone.endswith("still 1 run(s) not stable") and "comparison" not in lone
    pair = "pytorch-eager-lenet-bs32 vs mindspore-graph-lenet-bs32"
    assert rounds_line(f"cap reached (3 rounds, budget up to 4 s): still undecided: {pair}").endswith(
        "still 1 comparison(s) undecided"
    )
