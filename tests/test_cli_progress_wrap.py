"""A newcomer's smaller item: the probe commands' progress lines were cut at 100 columns and words broken
mid-word. A line piped to a file or a log (no terminal) wraps at words within 100 columns, and a finished
run's line printed above the live bar on a terminal wraps at the terminal's width; in both, the
continuation is indented under the text and nothing is cut."""

from __future__ import annotations

import io

import pytest

from advisor.estimates import Load


@pytest.fixture(autouse=True)
def quiet_host(monkeypatch):
    monkeypatch.setattr("advisor.estimates.load_now", lambda window=None: Load(2, 0.0))


def test_a_long_progress_line_wraps_at_words_within_100_columns_and_keeps_its_indent():
    from advisor.progress import probe_progress
    from probes.training.models import ProbeEvent

    error = "RuntimeError: " + " ".join(["the compiled graph could not be lowered for this device"] * 4)
    stream = io.StringIO()
    with probe_progress("training", None, stream=stream) as on_event:
        on_event(ProbeEvent(run_id="mindspore-graph-resnet18-bs32", kind="start", index=1, total=1))
        on_event(ProbeEvent(run_id="mindspore-graph-resnet18-bs32", kind="done", message=error, index=1, total=1))
    lines = stream.getvalue().splitlines()
    run = [i for i, line in enumerate(lines) if line.startswith("advisor: mindspore-graph-resnet18-bs32: ")][0]
    wrapped = [lines[run]]
    while run + len(wrapped) < len(lines) and lines[run + len(wrapped)].startswith("    "):
        wrapped.append(lines[run + len(wrapped)])
    assert len(wrapped) > 1 and all(len(line) <= 100 for line in lines)
    joined = " ".join(line.strip() for line in wrapped)
    assert error in joined and joined.endswith("(1 of 1 runs finished)")  # every word whole, none cut


def test_a_finished_runs_line_above_the_terminal_bar_keeps_its_indent_when_wrapped(monkeypatch):
    from advisor.progress import probe_progress
    from probes.training.models import ProbeEvent

    monkeypatch.setattr("advisor.progress._terminal", lambda stream: True)  # the live bar's path
    error = "RuntimeError: " + " ".join(["the compiled graph could not be lowered for this device"] * 4)
    stream = io.StringIO()
    with probe_progress("training", None, stream=stream) as on_event:
        on_event(ProbeEvent(run_id="mindspore-graph-resnet18-bs32", kind="start", index=1, total=1))
        on_event(ProbeEvent(run_id="mindspore-graph-resnet18-bs32", kind="done", message=error, index=1, total=1))
    lines = [line.rstrip() for line in stream.getvalue().splitlines() if line.strip()]
    run = [i for i, line in enumerate(lines) if line.startswith("mindspore-graph-resnet18-bs32: ")][0]
    wrapped = [lines[run]]
    while run + len(wrapped) < len(lines) and lines[run + len(wrapped)].startswith("    "):
        wrapped.append(lines[run + len(wrapped)])
    assert len(wrapped) > 1  # the continuation starts under the text, not at column 0
    assert error in " ".join(line.strip() for line in wrapped)
