"""`advisor check` starts its smoke children before it imports the rest of the check: the children
import their frameworks (~2 s each) while the parent gathers. What the parent learns
after starting them (its oneDNN cache) reaches the MindSpore child through a hints file."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from probes.launcher import PROJECT_ROOT

# Run in a fresh interpreter: which modules are loaded when the children start is the point.
SCRIPT = r"""
import json, sys
import probes.check.frameworks as frameworks

WATCH = ("pydantic", "yaml", "advisor.check.host", "advisor.render", "knowledge", "probes.check.nvidia", "probes.deploy.engines")
seen = {}

def fake_run_smoke(name, timeout, env_extra=None, on_message=None, extra_args=(), cancel=None):
    from probes.check.models import SmokeResult

    return SmokeResult(status="ok", ok=True, seconds=0.1), {}

original = frameworks.start_smoke

def start_smoke(*args, **kwargs):
    seen["loaded"] = [m for m in WATCH if m in sys.modules]
    return original(*args, **kwargs)

frameworks.run_smoke = fake_run_smoke
frameworks.installed_names = lambda: ["pytorch"]
frameworks.start_smoke = start_smoke
from advisor.cli import main

code = main(["check", "--json"])
print("SEEN " + json.dumps(seen), file=sys.stderr)
"""


def test_the_check_command_starts_its_smoke_children_before_the_rest():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    seen = json.loads(next(line[5:] for line in proc.stderr.splitlines() if line.startswith("SEEN ")))
    assert "loaded" in seen, "the check did not start its smoke children through start_smoke"
    assert seen["loaded"] == []  # no pydantic, YAML, check modules or knowledge base yet
    report = json.loads(proc.stdout)
    assert next(fw for fw in report["frameworks"] if fw["name"] == "pytorch")["smoke"]["status"] == "ok"


def _fake_children(monkeypatch, conv_before_plan: bool = False):
    """Fake smoke children: MindSpore reads its hint where the real one does (at the convolution)."""
    import probes.check.frameworks as frameworks
    from probes.check.models import ConvCheck, SmokeResult

    state = {"hints": [], "reruns": 0, "plan": __import__("threading").Event()}
    slow = {"shape": "s", "conv_ms": 400.0, "gemm_ms": 10.0, "ratio": 40.0, "slow": True}

    def fake_run_smoke(name, timeout, env_extra=None, on_message=None, extra_args=(), cancel=None):
        if "--conv-only" in extra_args:
            state["reruns"] += 1
            return SmokeResult(status="ok", ok=True, conv_check=ConvCheck(**{**slow, "conv_ms": 12.0})), {}
        if conv_before_plan:
            on_message({"kind": "progress", "stage": "conv", **slow})
            state["plan"].wait(5)
        hints = Path(extra_args[extra_args.index("--hints") + 1])
        for _ in range(500):
            if hints.exists():
                break
            time.sleep(0.01)
        state["hints"].append(hints.read_text() if hints.exists() else "no hint")
        state["folder"] = hints.parent
        if not conv_before_plan:
            on_message({"kind": "progress", "stage": "conv", **slow})
        return SmokeResult(status="ok", ok=True, seconds=0.1, conv_check=ConvCheck(**slow)), {}

    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.setattr(frameworks, "run_smoke", fake_run_smoke)
    return frameworks, state


def test_a_plan_made_after_the_start_reaches_the_mindspore_child(monkeypatch):
    frameworks, state = _fake_children(monkeypatch)
    run = frameworks.SmokeRun(["mindspore"], timeout=30).start()
    time.sleep(0.1)  # the child is running before the parent knows
    run.plan(confirm_onednn=False, conv_known_slow=True)
    results = run.wait()
    assert state["hints"] == ["conv-once"] and state["reruns"] == 0
    assert results["mindspore"]["smoke"].conv_check.slow is True
    assert not state["folder"].exists()  # the hints folder goes with the run


def test_a_slow_conv_reported_before_the_plan_gets_one_rerun(monkeypatch):
    frameworks, state = _fake_children(monkeypatch, conv_before_plan=True)
    run = frameworks.SmokeRun(["mindspore"], timeout=30).start()
    time.sleep(0.2)  # the conv message came first: the rerun starts as without a cache
    run.plan(confirm_onednn=True, confirm_early=True)  # and the early rerun is not started a second time
    state["plan"].set()
    results = run.wait()
    assert state["reruns"] == 1 and state["hints"] == ["conv-twice"]
    assert results["mindspore"]["smoke"].conv_check.capped_conv_ms == 12.0


def test_the_worker_reads_no_hint_as_no_hint(tmp_path):
    from probes.check.smoke_worker import _hint

    assert _hint(None) == "" and _hint(str(tmp_path / "missing")) == ""
    (tmp_path / "hints").write_text("conv-once\n")
    assert _hint(str(tmp_path / "hints")) == "conv-once"


def test_the_children_started_are_the_frameworks_detected(monkeypatch):
    """start_smoke (package metadata alone) and detect_frameworks name the same installed frameworks,
    also when a distribution's metadata is broken."""
    import probes.check.frameworks as frameworks

    assert frameworks.installed_names() == [fw.name for fw in frameworks.detect_frameworks() if fw.installed]

    def broken(dist):
        raise ValueError(f"{dist}: bad METADATA")

    monkeypatch.setattr(frameworks, "package_version", broken)
    assert frameworks.installed_names() == []
    assert not any(fw.installed for fw in frameworks.detect_frameworks())
