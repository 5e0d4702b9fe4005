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
