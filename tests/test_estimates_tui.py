"""The TUI's path for the progress model's events: a child that ended (the pipeline probe's "pass") reaches
the model as such, at once, through the registry's adapter and the TUI's throttle."""

from __future__ import annotations

from probes.base import KINDS, ProbeEvent
from tui.controller import Throttle, kind_row


def test_a_pass_event_is_sent_at_once_and_keeps_its_kind():
    """The registry's adapter turns a runner's own kind into progress (native_kind "pass"): the throttle
    sent it as progress, so the pipeline's ETA never counted a pass in the TUI."""
    sent = []
    throttle = Throttle(sent.append, kind_row(KINDS["pipeline"]), interval=60.0)
    rid = "pytorch-dataloader-w0"
    throttle.on_event(ProbeEvent(kind_name="pipeline", run_id=rid, kind="start"))
    for _ in range(2):  # two passes within the throttle's interval: neither is dropped
        throttle.on_event(ProbeEvent(kind_name="pipeline", run_id=rid, kind="progress", native_kind="pass"))
    assert [m.event for m in sent] == ["start", "pass", "pass"]
