"""The survivors of the fresh seed-2038 draw of the cache-and-writer mutants (93%: 26 killed, 2 survived),
each a behaviour a user relies on: the count of cached runs a merged probe says it kept, and the mode of a
chart written beside a new document."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from advisor import cache, output
from probes.training.models import ProbeConfig, ProbeSuite

FIXTURES = Path(__file__).parent / "fixtures"


def _suite() -> ProbeSuite:
    s = ProbeSuite.model_validate(json.loads((FIXTURES / "report" / "probes-cpu.json").read_text()))
    s.config = ProbeConfig()
    return s


def test_a_merged_probe_says_how_many_cached_runs_it_kept():
    """A new probe that measured none of the old one's runs keeps them all, and says how many, once."""
    old, new = _suite(), _suite()
    assert len(old.runs) >= 2
    new.runs = []
    merged = cache.merge_suites(new, old)
    assert [r.id for r in merged.runs] == [r.id for r in old.runs]
    kept = [w for w in merged.warnings if "kept from the cached probe" in w]
    assert kept == [
        f"{len(old.runs)} run(s) kept from the cached probe of {old.created} "
        "(not measured, or not measured successfully, this time)"
    ]


def test_a_chart_beside_a_new_document_gets_0o666_less_the_umask(tmp_path):
    """Under umask 0o022 the document and the chart written beside it are both 0o644, an ordinary file
    anyone may read (mkstemp alone would leave 0o600)."""
    doc = tmp_path / "report.md"
    old = os.umask(0o022)
    try:
        output.write_with_companions(str(doc), "# report\n", {"chart.svg": "<svg/>"})
    finally:
        os.umask(old)
    assert oct(doc.stat().st_mode & 0o777) == oct(0o644)
    assert oct((tmp_path / "chart.svg").stat().st_mode & 0o777) == oct(0o644)


# ---- the fresh seed-2039 draw (89% once the mutation tracer was fixed: 33 killed, 4 survived)


def test_a_file_that_is_not_json_is_one_line_naming_where(tmp_path):
    from advisor.errors import UsageError

    bad = tmp_path / "p.json"
    bad.write_text('{"runs": [1, 2,\n  oops]}\n')
    with pytest.raises(UsageError) as err:
        output.read_json(str(bad), "expected a probe result (advisor probe -o FILE)")
    assert str(err.value) == (
        f"{bad}: line 2, column 3: invalid JSON: Expecting value: expected a probe result (advisor probe -o FILE)"
    )


def test_an_output_folder_that_does_not_exist_is_refused_before_anything_is_written(tmp_path):
    from advisor.errors import UsageError

    target = tmp_path / "missing" / "report.json"
    with pytest.raises(UsageError) as err:
        output.write_atomic(str(target), "{}\n")
    assert str(err.value) == f"{target}: output folder {tmp_path / 'missing'} does not exist"
    assert list(tmp_path.iterdir()) == []


def test_a_fifo_with_no_reader_is_looked_for_every_poll_until_the_wait_is_over(tmp_path, monkeypatch):
    """os.open answers ENXIO while no reader has the FIFO open: the writer looks again every FIFO_POLL_S
    and gives up with one line once the wait has passed (a fake clock: no real waiting)."""
    import errno

    from advisor.errors import UsageError

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    clock, slept = [0.0], []

    def sleep(s):
        slept.append(s)
        clock[0] += s

    def no_reader(*a, **k):
        raise OSError(errno.ENXIO, "No such device or address")

    monkeypatch.setattr(output.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(output.time, "sleep", sleep)
    monkeypatch.setattr(output.os, "open", no_reader)
    with pytest.raises(UsageError, match="a FIFO with no reader after 0.2 s: start its reader first"):
        output._open_in_place(fifo, 0.2)
    assert slept and set(slept) == {output.FIFO_POLL_S}
    assert len(slept) == round(0.2 / output.FIFO_POLL_S)


def test_a_chart_name_that_was_a_symlink_comes_back_a_symlink_when_a_later_step_fails(tmp_path, monkeypatch):
    """Writing replaces a chart's name; when a later chart then cannot be placed, every name is put back as
    it was: the one that was a link to the user's own file is that link again (it was removed before), and
    the file it points to is untouched."""
    import errno

    from advisor.errors import UsageError

    theirs = tmp_path / "elsewhere.svg"
    theirs.write_text("<svg>theirs</svg>")
    (tmp_path / "a.svg").symlink_to(theirs)
    doc = tmp_path / "report.md"
    real_replace = os.replace

    def replace(src, dst, *a, **k):
        if str(dst).endswith("b.svg"):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst, *a, **k)

    monkeypatch.setattr(output.os, "replace", replace)
    with pytest.raises(UsageError, match="b.svg: cannot write"):
        output.write_with_companions(str(doc), "# new\n", {"a.svg": "<svg>a</svg>", "b.svg": "<svg>b</svg>"})
    monkeypatch.undo()
    assert (tmp_path / "a.svg").is_symlink() and os.readlink(tmp_path / "a.svg") == str(theirs)
    assert theirs.read_text() == "<svg>theirs</svg>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.svg", "elsewhere.svg"]


# ---- the fresh seed-2041 draw (97%: 30 killed, 1 survived)


def test_charts_go_beside_a_regular_file_only(tmp_path):
    """Charts are written beside -o's file: never beside a FIFO or a device (no /dev/null.scores.svg), and
    not when there is no file named."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert output.regular_target(str(tmp_path / "report.html")) is True
    assert output.regular_target(str(fifo)) is False
    assert output.regular_target("/dev/null") is False
    assert output.regular_target(None) is False and output.regular_target("") is False
