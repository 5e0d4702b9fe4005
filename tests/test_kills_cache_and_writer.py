"""The cache and the writer, in-process: the error lines of the JSON reader and of -o, the FIFO written in
place, the temporary name of a long file name, an interrupted write, the merge of a cached probe suite
and the oneDNN confirmation. Most of these were reached only through an `advisor` subprocess (the
hardening catalogue), where the mutation run cannot judge them."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from advisor import cache, output
from advisor.errors import UsageError
from probes.training.models import ParityResult, ProbeConfig, ProbeSuite

FIXTURES = Path(__file__).parent / "fixtures"

# ---- reading a JSON input ---------------------------------------------------------------------------


def test_a_value_no_reader_takes_is_named_by_its_path_clipped_to_80_characters(tmp_path):
    """A 21-digit integer under a 100-character key: the line names the field, cut to 79 characters and
    an ellipsis (80 in all), then why and what was expected."""
    key = "k" * 100
    path = tmp_path / "r.json"
    path.write_text(json.dumps({key: 1}).replace("1", "1" * 21), encoding="utf-8")
    with pytest.raises(UsageError) as err:
        output.read_json(str(path), "expected a probe result file")
    assert str(err.value) == (
        f"{path}: {key[:79]}…: invalid value: an integer of 21 digits (at most 20): expected a probe result file"
    )


def test_a_document_past_the_reader_budget_is_one_line_naming_the_file_and_flag(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 70 + "]" * 70, encoding="utf-8")
    with pytest.raises(UsageError) as err:
        output.read_json(str(path), "expected a probe result file", "--probes")
    assert str(err.value) == f"{path}: --probes: nested deeper than 64 levels: expected a probe result file"


# ---- -o refused up front ----------------------------------------------------------------------------


def test_an_output_name_with_a_nul_byte_is_one_line_not_a_traceback():
    with pytest.raises(UsageError) as err:
        output.check_output("a\x00b.json")
    assert str(err.value) == "'a\\x00b.json': -o: embedded null byte"


def test_an_output_that_is_one_of_the_inputs_is_refused(tmp_path):
    given = tmp_path / "probes.json"
    given.write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match=r"-o: is one of this command's inputs \(.*probes\.json\): writing it"):
        output.check_output(str(tmp_path / "." / "probes.json"), [None, str(given)])
    output.check_output(str(tmp_path / "other.json"), [str(given)])  # another name passes


def test_a_folder_as_output_is_refused(tmp_path):
    with pytest.raises(UsageError) as err:
        output.check_output(str(tmp_path))
    assert str(err.value) == f"{tmp_path}: is a folder; -o expects a file name"


# ---- writing ----------------------------------------------------------------------------------------


def test_a_fifo_is_written_in_place_for_its_reader(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[str] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text(encoding="utf-8")))
    reader.start()
    assert output.write_atomic(str(fifo), "the report\n") == fifo
    reader.join(timeout=60)
    assert got == ["the report\n"]
    assert fifo.is_fifo()  # written through, not replaced by a regular file


def _temp_prefixes(monkeypatch) -> list[str]:
    seen: list[str] = []
    real = output.tempfile.mkstemp

    def spy(*args, **kwargs):
        seen.append(kwargs["prefix"])
        return real(*args, **kwargs)

    monkeypatch.setattr(output.tempfile, "mkstemp", spy)
    return seen


def test_a_name_over_200_bytes_gets_a_short_temporary_name(tmp_path, monkeypatch):
    """The temporary file is `.NAME.` + 8 characters while NAME has at most 200 bytes; a longer legal
    name (up to 255) would pass the kernel's 255-byte limit that way, so it gets `.advisor-`."""
    seen = _temp_prefixes(monkeypatch)
    for n in (200, 201):
        output.write_atomic(str(tmp_path / ("n" * (n - 5) + ".json")), "x")
    assert seen == ["." + "n" * 195 + ".json.", ".advisor-"]


def test_an_interrupted_write_leaves_no_temporary_file_and_is_not_swallowed(tmp_path, monkeypatch):
    target = tmp_path / "report.md"
    target.write_text("the last report\n", encoding="utf-8")

    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        output.write_atomic(str(target), "half")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]
    assert target.read_text(encoding="utf-8") == "the last report\n"


# ---- the cache --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "typed"),
    [
        (["/usr/local/bin/advisor", "report", "my req.yaml"], "advisor report 'my req.yaml'"),
        (["/src/advisor/__main__.py", "probe", "--budget", "60"], "advisor probe --budget 60"),
        (["/venv/bin/pytest", "-k", "cache"], "pytest -k cache"),
        (["", "x"], "python x"),
    ],
)
def test_the_command_recorded_with_a_cached_run_is_the_one_typed(monkeypatch, argv, typed):
    monkeypatch.setattr(cache.sys, "argv", argv)
    assert cache.command_line() == typed


def _suite() -> ProbeSuite:
    s = ProbeSuite.model_validate(json.loads((FIXTURES / "report" / "probes-cpu.json").read_text()))
    s.config = ProbeConfig()
    return s


def test_merging_keeps_the_old_parity_of_a_model_the_new_probe_did_not_check_and_its_gemm_peak():
    old, new = _suite(), _suite()
    old.parity = [ParityResult(model="resnet18", ok=True)]
    new.parity = [ParityResult(model="lenet", ok=True)]
    old.gemm_peak, old.gemm_details = {"pytorch": 10.0, "mindspore": 20.0}, {"mindspore": {"n": 512}}
    new.gemm_peak, new.gemm_details = {"pytorch": 11.0}, {}
    merged = cache.merge_suites(new, old)
    assert [(p.model, p.ok) for p in merged.parity] == [("lenet", True), ("resnet18", True)]
    assert merged.gemm_peak == {"pytorch": 11.0, "mindspore": 20.0}
    assert merged.gemm_details == {"mindspore": {"n": 512}}
    # an ok parity replaces a failed one of the same model, never the other way round
    failed = ParityResult(model="lenet", ok=False, status="failed")
    new.parity = [failed]
    old.parity = [ParityResult(model="lenet", ok=True)]
    assert [(p.model, p.status) for p in cache.merge_suites(new, old).parity] == [("lenet", "ok")]
    assert [(p.model, p.status) for p in cache.merge_suites(old, _with_parity(failed)).parity] == [("lenet", "ok")]


def _with_parity(p: ParityResult) -> ProbeSuite:
    s = _suite()
    s.parity = [p]
    return s


def test_the_onednn_confirmation_is_kept_per_mindspore_version():
    cache.save_onednn_confirm("2.10.0", 12.5, 1.8, "2026-12-03", fingerprint="fp", conv={"conv_ms": 3.0})
    cache.save_onednn_confirm("2.9.0", 10.0, 2.0, "2026-11-01", fingerprint="fp")
    assert cache.load_onednn_confirm("2.10.0", "fp") == {
        "capped_conv_ms": 12.5,
        "capped_ratio": 1.8,
        "measured": "2026-12-03",
        "conv": {"conv_ms": 3.0},
    }
    assert cache.load_onednn_confirm("2.9.0", "fp")["capped_ratio"] == 2.0
    assert cache.load_onednn_confirm("2.8.0", "fp") is None
    assert cache.load_onednn_confirm("2.10.0", "other-host") is None


def test_a_new_file_gets_the_ordinary_mode_under_the_process_umask(tmp_path):
    """0o666 less the umask, read from /proc/self/status (octal "0027"): 0o640, not mkstemp's 0o600."""
    old = os.umask(0o027)
    try:
        written = output.write_atomic(str(tmp_path / "report.md"), "x")
    finally:
        os.umask(old)
    assert oct(written.stat().st_mode & 0o777) == oct(0o640)


def test_an_ok_parity_of_the_new_probe_is_kept_over_an_ok_cached_one():
    old, new = _suite(), _suite()
    old.parity = [ParityResult(model="lenet", ok=True, max_abs_diff=0.5)]
    new.parity = [ParityResult(model="lenet", ok=True, max_abs_diff=0.001)]
    assert [p.max_abs_diff for p in cache.merge_suites(new, old).parity] == [0.001]
    # neither ok: the new one stays too (only an ok parity replaces another)
    old.parity = [ParityResult(model="lenet", ok=False, status="failed", error="old")]
    new.parity = [ParityResult(model="lenet", ok=False, status="failed", error="new")]
    assert [p.error for p in cache.merge_suites(new, old).parity] == ["new"]


def test_a_scaling_result_with_ok_runs_replaces_the_cached_one_whole():
    from types import SimpleNamespace

    kept_copy = SimpleNamespace(warnings=[])
    old = SimpleNamespace(runs=[SimpleNamespace(status="ok")], model_copy=lambda deep=False: kept_copy)
    new = SimpleNamespace(runs=[SimpleNamespace(status="failed"), SimpleNamespace(status="ok")], created="today")
    assert cache.merge_scaling(new, old) is new
    failed = SimpleNamespace(runs=[SimpleNamespace(status="failed")], created="2026-12-03")
    assert cache.merge_scaling(failed, old) is kept_copy
    assert kept_copy.warnings == ["the scaling probe of 2026-12-03 had no successful run; this earlier result was kept"]


def test_a_damaged_onednn_confirmation_is_measured_again_not_trusted():
    cache.save_onednn_confirm("2.10.0", 12.5, 0.0, "2026-12-03", fingerprint="fp")
    assert cache.load_onednn_confirm("2.10.0", "fp") is None  # a ratio of 0 is no measurement
    cache.save_onednn_confirm("2.10.0", -1.0, 1.8, "2026-12-03", fingerprint="fp")
    assert cache.load_onednn_confirm("2.10.0", "fp") is None
