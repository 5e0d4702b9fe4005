"""The writer's survivors of the fresh seed-2035 draw of the cache-and-writer mutants, each a behaviour a
user relies on: a new file's ordinary mode, the old document put back when a chart cannot be placed, and
a FIFO's reader given its wait."""

from __future__ import annotations

import errno
import os

import pytest

from advisor import output
from advisor.errors import UsageError


def test_a_new_file_gets_0o666_less_the_umask(tmp_path):
    """Under umask 0o022 a new file written atomically is 0o644 (mkstemp alone would leave 0o600)."""
    old = os.umask(0o022)
    try:
        path = tmp_path / "report.json"
        output.write_atomic(str(path), "{}\n")
    finally:
        os.umask(old)
    assert oct(path.stat().st_mode & 0o777) == oct(0o644)


def test_a_chart_that_cannot_be_placed_puts_the_old_document_back(tmp_path, monkeypatch):
    """The document is renamed into place first; when its chart's rename then fails, the document it
    replaced comes back (from the hard link kept while renaming), not a half-written pair."""
    doc = tmp_path / "report.md"
    output.write_with_companions(str(doc), "# old\n", {"chart.svg": "<svg>old</svg>"})
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if str(dst).endswith("chart.svg"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(output.os, "replace", replace)
    with pytest.raises(UsageError, match="chart.svg: cannot write"):
        output.write_with_companions(str(doc), "# new\n", {"chart.svg": "<svg>new</svg>"})
    monkeypatch.undo()
    assert doc.read_text() == "# old\n"
    assert (tmp_path / "chart.svg").read_text() == "<svg>old</svg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chart.svg", "report.md"]


def test_a_fifo_whose_reader_is_late_is_waited_for(tmp_path, monkeypatch):
    """No reader yet (ENXIO) is retried until the wait runs out: a reader that arrives on the third try
    gets the document; nothing sleeps here (the clock and the pause are the module's)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    real_open, tries = os.open, []

    def late(path, flags, *a, **k):
        tries.append(path)
        if len(tries) < 3:
            raise OSError(errno.ENXIO, "No such device or address")
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(output.os, "open", late)
    monkeypatch.setattr(output.time, "sleep", lambda s: None)
    try:
        try:
            fh = output._open_in_place(fifo, 5.0)
        except UsageError as exc:
            fh, refused = None, str(exc)
        assert fh is not None, f"refused before its wait ran out: {refused}"
        with fh:
            fh.write("{}\n")
        assert len(tries) == 3
        assert os.read(reader, 100) == b"{}\n"
    finally:
        os.close(reader)
