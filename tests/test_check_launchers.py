"""`advisor check` reports what the scaling probe's launchers (torchrun, msrun) need."""

from advisor.check.host import run_check


def test_check_lists_launcher_readiness_on_this_host():
    report = run_check(smoke=False, use_kb=False)
    codes = {f.code for f in report.findings}
    # This machine has both frameworks and no accelerator: both launchers, CPU backends.
    assert {"scaling.torchrun", "scaling.msrun"} <= codes
    assert {"scaling.gloo", "scaling.mccl"} <= codes
    assert all(f.evidence == "launcher readiness" for f in report.findings if f.code.startswith("scaling."))


def test_fake_npus_ask_for_hccl(monkeypatch):
    from probes import hostfacts
    from probes.scaling import facts

    monkeypatch.setattr(hostfacts, "ascend_npu_count", lambda: 8)
    monkeypatch.setattr(facts, "_hccl_visible", lambda: None)
    report = run_check(smoke=False, use_kb=False)
    errors = [f for f in report.findings if f.code == "scaling.hccl_missing"]
    assert errors and errors[0].severity == "error" and "set_env.sh" in errors[0].fix


def test_check_lists_the_inference_engines_found_here():
    from advisor.check.host import _engine_findings

    findings = {f.code: f for f in _engine_findings()}
    assert "deploy.engines" in findings
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        assert "deploy.onnxruntime_missing" in findings
    else:
        assert "onnxruntime" in findings["deploy.engines"].message
        assert "CPUExecutionProvider" in findings["deploy.engines"].message
