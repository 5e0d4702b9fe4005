"""The cache and the writer, for the mutants a fresh draw (seed 2030) found surviving: the host a cached
run's record names, the scaling result kept when a later probe had no ok run, a FIFO switched back to
blocking writes, the -o check before a document with charts is written, the companions' file mode and
the backups a replaced document leaves behind."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from advisor import cache, output
from advisor.errors import UsageError


def test_a_cached_runs_host_is_the_one_its_record_names_else_this_hosts():
    """The run index records "run-a" measured on host "recorded": that host is named, not the fingerprint
    the cache was looked up with; "run-b" has no record, so the lookup's host ("fp") stands in."""
    path = cache._index_path("probes", "fp")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"run-a": {"date": "2026-12-01", "host": "recorded", "command": "advisor probe"}}))
    a, b = cache._used("probes", ["run-a", "run-b"], "2026-12-03", "fp")
    assert (a.host, a.date, a.command) == ("recorded", "2026-12-01", "advisor probe")
    assert (b.host, b.date, b.command) == ("fp", "2026-12-03", cache.NOT_RECORDED)


def test_a_scaling_result_with_one_ok_run_among_failures_is_kept_over_one_without_any():
    """The cached result ran one ok run of two; the new one none: the cached one is kept (a copy, with a
    warning naming the later run)."""
    kept_copy = SimpleNamespace(warnings=[])
    old = SimpleNamespace(
        runs=[SimpleNamespace(status="failed"), SimpleNamespace(status="ok")], model_copy=lambda deep=False: kept_copy
    )
    new = SimpleNamespace(runs=[SimpleNamespace(status="failed")], created="2026-12-03")
    assert cache.merge_scaling(new, old) is kept_copy
    assert len(kept_copy.warnings) == 1


def test_a_fifo_opened_without_waiting_for_a_reader_is_written_with_blocking_writes(tmp_path):
    """The FIFO is opened non-blocking so a missing reader is an error after a wait, not a hang; once open,
    writes block again (a non-blocking write of a long document into a full pipe would fail with EAGAIN)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with output._open_in_place(fifo, 1.0) as fh:
            assert os.get_blocking(fh.fileno())
    finally:
        os.close(reader)


def test_a_document_with_charts_checks_its_output_name_first(tmp_path):
    """`report.md/.` names a folder: refused before anything is written (pathlib alone would read it as
    report.md and write a file there)."""
    with pytest.raises(UsageError):
        output.write_with_companions(f"{tmp_path}/report.md/.", "# report\n", {"chart.svg": "<svg/>"})
    assert list(tmp_path.iterdir()) == []


def test_charts_get_the_ordinary_mode_and_a_replaced_document_leaves_no_backup(tmp_path):
    """Under umask 0o027 a new document and its chart are 0o640 (0o666 less the umask, not mkstemp's
    0o600); written again over themselves, the hard-link backups kept while renaming are removed: the
    folder holds the document and its chart only."""
    old = os.umask(0o027)
    try:
        doc = tmp_path / "report.md"
        output.write_with_companions(str(doc), "# report\n", {"chart.svg": "<svg/>"})
        modes = {p.name: oct(p.stat().st_mode & 0o777) for p in tmp_path.iterdir()}
        output.write_with_companions(str(doc), "# report, again\n", {"chart.svg": "<svg>2</svg>"})
    finally:
        os.umask(old)
    assert modes == {"report.md": oct(0o640), "chart.svg": oct(0o640)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.svg", "report.md"]
    assert doc.read_text() == "# report, again\n"


def test_a_document_printed_to_stdout_is_flushed_before_the_command_returns(monkeypatch):
    """Without -o the text goes to stdout and is flushed there and then (a command may end with os._exit,
    or a pipe's reader wait on it)."""

    class Stdout:
        def __init__(self):
            self.parts, self.flushed = [], ""

        def write(self, text):
            self.parts.append(text)

        def flush(self):
            self.flushed = "".join(self.parts)

    out = Stdout()
    monkeypatch.setattr("sys.stdout", out)
    output.emit("the report\n", None)
    assert out.flushed == "the report\n"
