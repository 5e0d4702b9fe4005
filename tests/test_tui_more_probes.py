"""The deployment, accuracy and input-pipeline probes and the scaling probe across
hosts on the Probes screen: start from the screen's choices, live rows, the finished
tables and verdicts, a failed step shown with its reason, a crashing runner, and the node R of N
control refusing bad input with the CLI's own message. The launchers are fakes replaying real
results measured on this machine kind (tests/fixtures/tui/*.json) through the real models."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from fixtures.tui.fakes import (  # noqa: E402
    FakeLauncher,
    FakeScalingLauncher,
    accuracy_fixture,
    deploy_fixture,
    deploy_launcher,
    deploy_with_rejected_operator,
    host_report,
    pipeline_fixture,
    suite_launcher,
)
from fixtures.tui.pilot import record_notifications, run_async, screen_text, settle, wait_for  # noqa: E402

from advisor.report import Report  # noqa: E402
from tui import providers  # noqa: E402
from tui.app import make_app  # noqa: E402

pytestmark = pytest.mark.timeout(60)


def no_report(requirements, host, probes, scaling=None, **extra):
    return None


def app_with(**kwargs):
    kwargs.setdefault("host_provider", host_report)
    kwargs.setdefault("report_builder", no_report)
    kwargs.setdefault("probe_launcher", FakeLauncher())
    kwargs.setdefault("scaling_launcher", FakeScalingLauncher())
    kwargs.setdefault("initial_mode", "probes")
    kwargs.setdefault("check_on_start", False)
    return make_app(**kwargs)


def cells(app, table_id: str) -> list[list[str]]:
    table = app.screen.query_one(f"#{table_id}")
    return [[str(getattr(c, "plain", c)) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def press_button(pilot, button_id: str) -> None:
    button = pilot.app.screen.query_one(f"#{button_id}")
    button.scroll_visible(animate=False)
    await pilot.pause()
    button.press()
    await pilot.pause()


# ---- deployment ------------------------------------------------------------------------


@run_async
async def test_deploy_runs_from_the_screen_and_shows_export_serve_and_parity():
    hold = threading.Event()
    launcher = deploy_launcher(deploy_with_rejected_operator(), hold=hold)
    app = app_with(deploy_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#deploy-panel").display  # nothing to show before a run
        await press_button(pilot, "deploy-start")
        await wait_for(pilot, lambda: any(p.fraction > 0 for p in app.state.deploy.runs.values()), what="a step")
        assert app.state.deploy.running and app.screen.query_one("#deploy-start").disabled
        assert app.screen.query("#deploy-runs RunRow"), "a live row per step"
        assert "Deployment probe running" in screen_text(app)
        assert not app.start_measurement("training", object())  # one kind of probe at a time
        hold.set()
        await wait_for(pilot, lambda: not app.state.deploy.running, what="the end")
        await settle(pilot)
        config = launcher.configs[0]
        # The screen's choices (a host with no results: the quick profile's models): both frameworks,
        # lenet, latency at 1, throughput at 32.
        assert (config.frameworks, config.models, config.batch_sizes) == (["pytorch", "mindspore"], ["lenet"], [1, 32])
        exports = cells(app, "deploy-exports-table")
        assert [r[:4] for r in exports] == [
            ["pytorch", "onnx", "lenet", "ok"],
            ["pytorch", "torch.export", "lenet", "ok"],
            ["mindspore", "mindir", "lenet", "ok"],
            ["mindspore", "onnx", "lenet", "failed"],
        ]
        assert exports[3][7].startswith("operator Cummax: mindspore.export")
        result = launcher.result
        ort = next(s for s in result.serves if s.id == "pytorch-onnx-lenet@onnxruntime-cpu")
        row = next(r for r in cells(app, "deploy-serves-table") if r[0] == "onnxruntime-cpu")
        assert row[:4] == ["onnxruntime-cpu", "onnx", "lenet", "ok"]
        assert row[4:7] == [f"{ort.latency_ms[k]:.3f}" for k in ("p50", "p95", "p99")]
        assert row[7] == f"{ort.throughput:,.0f}" and row[9] == f"{ort.placement['nodes']} on CPU"
        text = screen_text(app)
        assert "Cummax is not supported in ONNX export" in text  # the reason, in full, under the tables
        assert "pytorch-onnx-lenet@onnxruntime-cpu vs pytorch-source-lenet@torch-eager" not in text
        assert "Parity pytorch-source-lenet@torch-eager vs pytorch-onnx-lenet@onnxruntime-cpu: ok" in text
        assert "not measured: MindSpore Lite is not installed" in text


def test_deploy_says_not_installed_without_onnx():
    from tui.widgets.probe_panels import DeployPanel, not_installed

    engines = [dict(e) for e in deploy_fixture().engines]
    for e in engines:
        if e["name"] in ("onnx", "onnxruntime"):
            e.update(installed=False, reason=f"{e['name']} is not installed")
    text = not_installed(engines)
    assert text.startswith("onnx: not installed (onnx is not installed); ONNX Runtime: not installed")
    result = deploy_fixture().model_copy(update={"engines": engines})
    notes = " ".join(t.plain for t in DeployPanel.note_lines(DeployPanel(), result))
    assert "ONNX Runtime: not installed" in notes
    assert not_installed(deploy_fixture().engines) == ""  # this host has both


@run_async
async def test_deploy_idle_status_says_which_engine_is_missing(monkeypatch):
    monkeypatch.setenv("ADVISOR_DEPLOY_HIDE", "onnxruntime")  # the probe's own hook (probes/deploy/common.py)
    app = app_with()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query_one("#deploy-panel")
        panel.show_status(app)
        assert "ONNX Runtime: not installed" in str(app.screen.query_one("#deploy-status").content)
        assert "onnx: not installed" not in str(app.screen.query_one("#deploy-status").content)


@run_async
async def test_a_crashing_deploy_runner_fails_its_open_row_with_the_reason():
    launcher = deploy_launcher(crash="worker pipe closed: probes.deploy.worker_torch killed by SIGKILL")
    app = app_with(deploy_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        await press_button(pilot, "deploy-start")
        await wait_for(pilot, lambda: launcher.started.is_set() and not app.state.deploy.running, what="the crash")
        await settle(pilot)
        row = app.state.deploy.runs["pytorch-onnx-lenet"]
        assert (row.status, row.message) == (
            "failed",
            "worker pipe closed: probes.deploy.worker_torch killed by SIGKILL",
        )
        assert any(sev == "error" and "SIGKILL" in msg for _, msg, sev in seen)
        assert not app.screen.query_one("#deploy-start").disabled  # the screen is usable again


@run_async
async def test_cancel_stops_the_deployment_probe_and_keeps_the_finished_steps():
    hold = threading.Event()
    launcher = deploy_launcher(hold=hold)
    app = app_with(deploy_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        await press_button(pilot, "deploy-start")
        await wait_for(pilot, lambda: launcher.started.is_set() and app.state.deploy.running, what="the start")
        # The footer recomposes after the bindings change (it is briefly empty on a loaded host): wait for it.
        await wait_for(
            pilot,
            lambda: "Cancel" in {k.description for k in app.screen.query("FooterKey")},
            what="the footer to offer Cancel",
        )
        await pilot.press("c")
        assert app.state.deploy.cancel.is_set()  # the launcher's flag: the real runner kills its child
        hold.set()
        await wait_for(pilot, lambda: not app.state.deploy.running, what="the stop")
        await settle(pilot)
        assert list(app.state.deploy.runs) == ["pytorch-onnx-lenet"]  # no step started after the cancel
        assert any("Deployment probe cancelled" in msg for _, msg, _ in seen)
        assert not app.screen.query_one("#deploy-start").disabled


# ---- time-to-accuracy and the input pipeline ---------------------------------------------


@run_async
async def test_accuracy_runs_from_the_screen_with_the_gap_verdict_and_the_chart():
    from advisor.decision.accuracy import gap_verdict
    from tui.widgets.charts import accuracy_curves

    suite = accuracy_fixture()
    failed = suite.runs[-1].model_copy(
        update={"status": "timeout", "error": "timed out after 900 s", "accuracy": [], "final_accuracy": None}
    )
    suite = suite.model_copy(update={"runs": [*suite.runs[:-1], failed]})
    launcher = suite_launcher(suite)
    app = app_with(accuracy_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.screen.query_one("#mode-compile").value = False
        app.screen.query_one("#mode-pynative").value = False
        app.screen.query_one("#accuracy-epochs").value = "4"
        app.screen.query_one("#accuracy-seeds").value = "2"
        await press_button(pilot, "accuracy-start")
        await wait_for(pilot, lambda: app.state.accuracy.result is not None, what="the suite")
        await settle(pilot)
        config = launcher.configs[0]
        assert (config.modes, config.epochs, config.seeds, config.batch_size) == (["eager", "graph"], 4, 2, 32)
        rows = cells(app, "accuracy-runs-table")
        first = suite.runs[0]
        assert rows[0][:4] == [first.id, "ok", f"{first.final_accuracy:.1%}", f"{first.epochs_to_target} epochs"]
        assert rows[3][:4] == ["mindspore-graph-seed1", "timeout", "-", "timed out after 900 s"]
        text = screen_text(app)
        verdict, why = gap_verdict(suite.gaps[0])
        assert f"Gap {verdict}: {why}" in text
        assert "Normalize trap: PyTorch-style 0-1 mean/std" in text
        chart = app.screen.query_one("#chart-accuracy")
        assert chart.display
        curves = dict(accuracy_curves(suite))
        assert set(curves) == {"pt eager", "ms graph"}  # one line per framework and mode
        assert curves["pt eager"] == pytest.approx(
            [(a + b) / 2 for a, b in zip(suite.runs[0].accuracy, suite.runs[2].accuracy)]
        )
        assert curves["ms graph"] == pytest.approx(suite.runs[1].accuracy)  # its timed-out seed left out


@run_async
async def test_pipeline_runs_from_the_screen_with_the_starved_verdict():
    from advisor.decision.pipeline import verdict

    suite = pipeline_fixture()
    launcher = suite_launcher(suite)
    app = app_with(pipeline_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_button(pilot, "pipeline-start")
        await wait_for(pilot, lambda: app.state.pipeline.result is not None, what="the suite")
        await settle(pilot)
        assert launcher.configs[0].frameworks == ["pytorch", "mindspore"]
        rows = cells(app, "pipeline-runs-table")
        assert [r[0] for r in rows] == [r.id for r in suite.runs]
        for row, run in zip(rows, suite.runs):
            assert row[2] == f"{run.alone.samples_per_second:,.0f}"
            assert row[5] == verdict(run).split(":")[0]  # starved / keeps up; in full under the table
        text = screen_text(app)
        for run in suite.runs:
            assert f"{run.id}: {verdict(run)}" in text
        assert "fastest loader here" in text


def test_bad_choices_for_the_new_probes_are_refused_before_a_start():
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="seeds"):
        providers.make_config("accuracy", {"frameworks": ["pytorch"], "seeds": 11})
    with pytest.raises(ValidationError, match="budget"):
        providers.make_config("deploy", {"budget": 4000})


@run_async
async def test_bad_epochs_are_a_notification_not_a_run():
    launcher = suite_launcher(accuracy_fixture())
    app = app_with(accuracy_launcher=launcher)
    async with app.run_test(size=(120, 40)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        app.screen.query_one("#accuracy-epochs").value = "0"
        await press_button(pilot, "accuracy-start")
        await settle(pilot)
        assert not launcher.configs
        assert any(title == "Cannot start the accuracy probe" and msg.startswith("epochs:") for title, msg, _ in seen)


def test_the_registry_events_carry_what_the_rows_show(monkeypatch):
    """The deployment and accuracy probes run through the registry (probes.base.KINDS[...].run): its one
    ProbeEvent carries the step ids and statuses and the epochs as a fraction, which the TUI's own
    adapters used to add."""
    from probes.accuracy.models import AccuracyConfig, AccuracySuite
    from probes.deploy.models import DeployEvent
    from tui.controller import KINDS, Throttle

    def fake_run_deploy(config, on_event=None, cancel=None):
        on_event(DeployEvent(step_id="pytorch-onnx-lenet", kind="start", message="export lenet", index=1, total=3))
        on_event(
            DeployEvent(step_id="pytorch-onnx-lenet", kind="done", message="no onnx", status="failed", index=1, total=3)
        )
        on_event(DeployEvent(step_id="ort-serve-lenet", kind="done", message="served", status="ok", index=2, total=3))
        return "result"

    def fake_run_suite(config, cancel=None, on_event=None):
        # probes.accuracy.worker_torch's per-epoch progress (channel.progress(epoch=, epochs=, accuracy=, loss=))
        on_event("pytorch-eager-seed0", {"kind": "progress", "epoch": 2, "epochs": 8, "accuracy": 0.5, "loss": 1.0})
        return AccuracySuite(config=config)

    monkeypatch.setattr("probes.deploy.runner.run_deploy", fake_run_deploy)
    monkeypatch.setattr("probes.accuracy.runner.run_suite", fake_run_suite)
    posted: list = []
    rows = {k.name: Throttle(posted.append, k, interval=0.0) for k in KINDS}
    assert providers.default_launcher("deploy")(None, rows["deploy"].on_event, None) == "result"
    suite = providers.default_launcher("accuracy")(
        AccuracyConfig(frameworks=["pytorch"]), rows["accuracy"].on_event, None
    )
    assert suite.normalize_check is None
    seen = [(m.kind, m.run_id, m.event, m.fraction, m.message, m.run, m.total) for m in posted]
    assert seen == [
        ("deploy", "pytorch-onnx-lenet", "start", None, "export lenet", None, 3),
        ("deploy", "pytorch-onnx-lenet", "done", None, None, {"status": "failed", "error": "no onnx"}, 3),
        ("deploy", "ort-serve-lenet", "done", None, None, {"status": "ok", "error": None}, 3),
        ("accuracy", "pytorch-eager-seed0", "progress", 0.25, "epoch 2/8: test accuracy 50.0%", None, None),
    ]


# ---- scaling across hosts ----------------------------------------------------------------


def cli_message(argv: list[str]) -> str:
    """What `advisor probe --scaling ARGV` says (advisor/commands/scaling.py), without running anything."""
    from advisor.commands.scaling import run_multinode_from_args
    from advisor.errors import UsageError
    from advisor.cli import build_parser

    args = build_parser().parse_args(["probe", "--scaling", *argv])
    with pytest.raises(UsageError) as exc:
        run_multinode_from_args(args)
    return str(exc.value)


BAD_MULTINODE = [
    # (nnodes, node rank, master, N ranks): the same values the CLI gets
    ("0", "0", "10.0.0.1", ""),
    ("2", "2", "10.0.0.1", ""),
    ("2", "1", "", ""),
    ("2", "", "10.0.0.1", ""),
    ("", "1", "10.0.0.1", ""),
    ("2", "0", "10.0.0.1:80", ""),
    ("2", "0", "10.0.0.1:port", ""),
    ("2", "0", "10.0.0.1:65535", ""),
    ("2", "0", "10.0.0.1", "2"),
]


@pytest.mark.parametrize("nnodes,rank,master,ranks", BAD_MULTINODE)
@run_async
async def test_bad_multinode_input_is_refused_with_the_cli_message(nnodes, rank, master, ranks):
    argv = [
        f"--{flag}={value}"
        for flag, value in (("nnodes", nnodes), ("node-rank", rank), ("master", master), ("ranks", ranks))
        if value
    ]
    expected = cli_message(argv + ["--frameworks", "pytorch,mindspore", "--repeat", "3"])
    launcher = FakeScalingLauncher()
    multinode: list = []
    app = app_with(scaling_launcher=launcher, multinode_launcher=lambda c, e, x: multinode.append(c))
    async with app.run_test(size=(120, 40)) as pilot:
        seen = record_notifications(app)
        await settle(pilot)
        for wid, value in (
            ("multinode-nnodes", nnodes),
            ("multinode-rank", rank),
            ("multinode-master", master),
            ("scaling-ranks", ranks),
        ):
            app.screen.query_one(f"#{wid}").value = value
        await pilot.press("d")
        await settle(pilot)
        assert not launcher.configs and not multinode
        assert ("Cannot start the scaling probe", expected, "error") in seen
        assert expected in screen_text(app)  # and under the control until it is fixed


@run_async
async def test_node_r_of_n_starts_the_multinode_probe_and_shows_each_hosts_command():
    from probes.scaling.multinode import Rendezvous

    requests: list = []

    def multinode(request, on_event, cancel):
        requests.append(request)
        on_event({"run_id": "node 1 of 2", "kind": "progress", "message": "[node 1/2] torchrun: lenet"})
        return providers.other_node_result(request, True, [])

    app = app_with(multinode_launcher=multinode, save_scaling=lambda r: pytest.fail("a node's part is not cached"))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for wid, value in (("multinode-nnodes", "2"), ("multinode-rank", "1"), ("multinode-master", "10.0.0.1")):
            app.screen.query_one(f"#{wid}").value = value
        await settle(pilot)
        text = screen_text(app)
        common = "--master 10.0.0.1:29500 --frameworks pytorch,mindspore --models lenet --repeat 3 --batch-size 32"
        assert f"node 0: advisor probe --scaling --nnodes 2 --node-rank 0 {common}" in text
        assert f"node 1: advisor probe --scaling --nnodes 2 --node-rank 1 {common}  <- this host" in text
        await pilot.press("d")
        await wait_for(pilot, lambda: app.state.scaling.result is not None, what="the node's result")
        await settle(pilot)
        assert requests[0].rendezvous == Rendezvous(2, 1, "10.0.0.1", 29500)
        assert requests[0].config.models == ["lenet"]
        assert "node 1 of 2: failed: no framework available" in screen_text(app)  # it ran no launch


def test_a_multinode_result_shows_intra_against_inter_host():
    from probes.scaling.models import InterHost
    from tui.widgets.scaling_panel import inter_host_lines

    block = {
        "nnodes": 2,
        "ranks_per_node": 1,
        "world_size": 2,
        "master": "127.0.0.1:29500",
        "rendezvous_timeout_s": 60,
        "link": {"interface": "lo", "source_address": "127.0.0.1", "loopback": True, "speed_source": "loopback"},
        "frameworks": [
            {
                "framework": "pytorch",
                "launcher": "torchrun",
                "model": "lenet",
                "world_size": 2,
                "runs_ok": 3,
                "runs_total": 3,
                "status": "ok",
                "inter": {"runs": 3, "step_ms": {"median": 12.0, "min": 11.0, "max": 14.0, "n": 3}},
                "intra": {"runs": 3, "step_ms": {"median": 9.0, "min": 8.0, "max": 10.0, "n": 3}},
            },
            {
                "framework": "mindspore",
                "launcher": "msrun",
                "model": "lenet",
                "world_size": 2,
                "runs_ok": 0,
                "runs_total": 3,
                "status": "failed",
                "reason": "rendezvous timed out after 60 s: check HCCL_IF_IP",
            },
        ],
    }
    lines = [t.plain for t in inter_host_lines(InterHost.model_validate(block))]
    assert lines[0] == "Across hosts: 2 hosts x 1 rank(s) (master 127.0.0.1:29500), over lo (127.0.0.1; loopback)"
    assert "step 12 (11-14) ms across hosts vs 9 (8-10) ms on one host" in lines[1]
    assert lines[2] == "  mindspore msrun lenet: failed rendezvous timed out after 60 s: check HCCL_IF_IP"


def test_one_host_multinode_request_is_the_ordinary_probe(monkeypatch):
    seen: list = []
    monkeypatch.setattr(providers, "default_scaling_launcher", lambda config, on_event, cancel: seen.append(config))
    config = providers.make_config("scaling", {"frameworks": ["pytorch"], "models": ["lenet"]})
    request = providers.validate_multinode("1", "0", "", None, config)
    providers.default_multinode_launcher(request, None, None)
    assert seen == [config]  # as `advisor probe --scaling --nnodes 1`


# ---- the migration scan's breakdown on the Recommendation screen ------------------------

SCAN_REQUIREMENTS = Path(__file__).parent / "fixtures" / "tui" / "scan-requirements.yaml"


@run_async
async def test_recommendation_shows_the_scan_breakdown_of_model_code_path():
    """The real report over a small project written for this test (tests/fixtures/tui/scan-project):
    the scan `advisor report` makes of model.code_path, and its effort per role and package."""
    from advisor.scan import scan_path

    import knowledge

    expected = scan_path(str(SCAN_REQUIREMENTS.parent / "scan-project"), kb=knowledge.load())
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        requirements_path=str(SCAN_REQUIREMENTS),
        initial_mode="recommendation",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.state.report is not None, timeout=40, what="the report")
        await settle(pilot)
        assert app.state.report.scan is not None  # the report carries the scan, as for `advisor report`
        assert app.screen.query_one("#rec-scan").display
        text = screen_text(app)
        low, high = expected.effort_hours
        assert f"effort {low:.1f}-{high:.1f} h, risk {expected.risk}" in text
        roles = {s.role: s for s in expected.effort_breakdown.by_role}
        for role, title in (("model", "model"), ("training", "training loop"), ("data", "data pipeline")):
            share = roles[role]
            assert f"{title} " in text and f"{share.effort_hours[0]:.1f}-{share.effort_hours[1]:.1f} h" in text
        assert "tests (excluded)" in text and "shelfnet" in text  # the package, and tests apart
        assert "Excluded from the total: 1 file(s)" in text


def test_a_missing_code_path_is_a_notice_and_the_report_still_builds(tmp_path):
    from advisor.errors import UsageError
    from advisor.requirements import load_requirements

    text = SCAN_REQUIREMENTS.read_text().replace("code_path: scan-project", "code_path: nowhere")
    (tmp_path / "req.yaml").write_text(text)
    req = load_requirements(tmp_path / "req.yaml")
    with pytest.raises(UsageError, match="model.code_path: .*nowhere does not exist"):
        providers.default_scan_code(req, str(tmp_path / "req.yaml"))
    assert (
        providers.default_scan_code(
            load_requirements(
                SCAN_REQUIREMENTS.parent.parent.parent.parent / "examples" / "prototype-then-ascend.yaml"
            ),
            None,
        )
        is None
    )


@pytest.mark.slow
@pytest.mark.timeout(120)
@run_async
async def test_real_accuracy_probe_from_the_screen_one_pytorch_epoch():
    """The one real run here: one epoch of PyTorch eager on the digits (one child, about 10 s), through
    the default provider, so the runner's own per-epoch events and result reach the panel."""
    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        report_builder=no_report,
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for wid in ("fw-mindspore", "mode-compile", "mode-graph", "mode-pynative"):
            app.screen.query_one(f"#{wid}").value = False
        app.screen.query_one("#accuracy-epochs").value = "1"
        app.screen.query_one("#accuracy-seeds").value = "1"
        await press_button(pilot, "accuracy-start")
        await wait_for(pilot, lambda: app.state.accuracy.result is not None, timeout=100, what="the real probe")
        await settle(pilot)
        suite = app.state.accuracy.result
        run = suite.runs[0]
        assert [r.id for r in suite.runs] == ["pytorch-eager-seed0"], [r.error for r in suite.runs]
        assert run.status == "ok" and len(run.accuracy) == 1, run.error
        assert app.state.accuracy.runs["pytorch-eager-seed0"].status == "ok"  # the live row ended ok
        assert cells(app, "accuracy-runs-table")[0][:3] == ["pytorch-eager-seed0", "ok", f"{run.accuracy[0]:.1%}"]
        text = screen_text(app)
        assert "Gap: not measured" in text and "one seed" in text  # one framework, one seed: said so


def uncapped(proj: dict) -> None:
    """The frozen report's projection as a report built before the loader bound capped it (the frozen
    one is capped at the assumed loader rate, and a capped projection waits for the rebuilt report):
    8 x ascend-910b, ResNet-18, the rates it had uncapped."""
    proj["warnings"] = []
    proj["images_per_second"] = {"low": 42668.492, "high": 48763.991, "unit": "images/s"}


def test_the_pipeline_is_set_against_the_projected_rate_of_the_target():
    """The issue's "on 8 x 910B this pipeline would feed 31% of the chips", from the frozen report's
    projection (tests/fixtures/tui/report.json: 8 x ascend-910b, ResNet-18) and the measured loaders."""
    import json

    from advisor.decision.pipeline import best_rate
    from tui.widgets.probe_panels import feed_line

    report = json.loads((Path(__file__).parent / "fixtures" / "tui" / "report.json").read_text())
    proj = next(p for p in report["projections"] if p["framework"] == "mindspore" and p["target"] == "ascend")
    uncapped(proj)
    suite = pipeline_fixture()
    best = best_rate(suite, "mindspore")
    low, high = proj["images_per_second"]["low"], proj["images_per_second"]["high"]
    least, most = min(1.0, best[0] / high), min(1.0, best[0] / low)  # one host of 8 takes the whole projection
    text = feed_line("mindspore", best, Report.model_validate(report)).plain
    assert text.startswith(f"  on 8 x ascend-910b: this loader would feed {least:.0%}-{most:.0%} of the devices")
    assert f"at the projected {low:,.0f}-{high:,.0f} images/s (resnet18, reference)" in text
    assert feed_line("mindspore", best, None) is None  # no report, no projection: nothing claimed


def test_default_accuracy_and_pipeline_providers_call_the_real_runners(monkeypatch):
    """run_suite(config, cancel=, on_event=(run_id, msg)): the registry's launchers pass the cancel flag and
    turn each message into a ProbeEvent; the Normalize check runs only with MindSpore chosen, as the CLI."""
    from probes.accuracy.models import AccuracyConfig, AccuracySuite
    from probes.pipeline.models import PipelineConfig, PipelineSuite

    calls: list = []

    def fake_suite(kind, model):
        def run_suite(config, cancel=None, on_event=None):
            calls.append((kind, cancel))
            on_event("pytorch-x", {"kind": "start"})
            return model(config=config)

        return run_suite

    monkeypatch.setattr("probes.accuracy.runner.run_suite", fake_suite("accuracy", AccuracySuite))
    monkeypatch.setattr("probes.pipeline.runner.run_suite", fake_suite("pipeline", PipelineSuite))
    monkeypatch.setattr("probes.accuracy.runner.run_normalize_check", lambda **_: pytest.fail("no MindSpore chosen"))
    events: list = []
    cancel = providers.new_cancel()
    suite = providers.default_launcher("accuracy")(AccuracyConfig(frameworks=["pytorch"]), events.append, cancel)
    assert suite.normalize_check is None
    providers.default_launcher("pipeline")(PipelineConfig(frameworks=["pytorch"]), events.append, cancel)
    assert calls == [("accuracy", cancel), ("pipeline", cancel)]
    # both as the registry's one event type (probes.base.ProbeEvent)
    assert [(e.kind_name, e.run_id, e.kind) for e in events] == [
        ("accuracy", "pytorch-x", "start"),
        ("pipeline", "pytorch-x", "start"),
    ]


@run_async
async def test_a_finished_accuracy_and_pipeline_run_enter_the_report_as_measured_evidence():
    """What `advisor report --accuracy/--pipeline FILE` reads, the TUI hands to the same builder."""
    seen: list[dict] = []

    def recording_builder(requirements, host, probes, scaling=None, **extra):
        seen.append(extra)
        return None

    app = make_app(
        host_provider=host_report,
        probe_launcher=FakeLauncher(),
        scaling_launcher=FakeScalingLauncher(),
        accuracy_launcher=suite_launcher(accuracy_fixture()),
        pipeline_launcher=suite_launcher(pipeline_fixture()),
        report_builder=recording_builder,
        requirements_path=str(SCAN_REQUIREMENTS),
        initial_mode="probes",
        check_on_start=False,
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await press_button(pilot, "accuracy-start")
        await wait_for(pilot, lambda: any("accuracy" in e for e in seen), what="a report with the accuracy run")
        await press_button(pilot, "pipeline-start")
        await wait_for(pilot, lambda: any("pipeline" in e for e in seen), what="a report with the pipeline run")
        last = seen[-1]
        assert last["accuracy"] is app.state.accuracy.result and last["pipeline"] is app.state.pipeline.result


def test_the_tui_feed_share_is_the_reports_for_projections_beyond_one_host():
    """16 devices are two hosts of 8: each host's pipeline feeds its own 8, never all 16 from one host.
    The expected share is written out here (a host's 8 devices take 8/16 of the projected rate), not
    computed with the production feed_share."""
    import json

    from advisor.decision.pipeline import best_rate
    from tui.widgets.probe_panels import feed_line

    report = json.loads((Path(__file__).parent / "fixtures" / "tui" / "report.json").read_text())
    proj = next(p for p in report["projections"] if p["framework"] == "mindspore" and p["target"] == "ascend")
    uncapped(proj)
    proj["devices"] = 16
    low, high = (proj["images_per_second"][k] * 4 for k in ("low", "high"))  # 16 devices at 2x the rate of 8
    proj["images_per_second"] = {"low": low, "high": high, "unit": "images/s"}
    best = best_rate(pipeline_fixture(), "mindspore")
    least, most = (min(1.0, best[0] / (rate * 8 / 16)) for rate in (high, low))
    assert least < most < 1.0
    assert f"{min(1.0, best[0] / high):.0%}" != f"{least:.0%}"  # the old one-host-feeds-all figure would differ
    text = feed_line("mindspore", best, Report.model_validate(report)).plain
    assert text.startswith(f"  on 16 x ascend-910b: this loader would feed {least:.0%}-{most:.0%} of the devices")
