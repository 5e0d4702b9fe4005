"""Shared test set-up: keep the user's real cache and knowledge-base overrides out of the tests."""

import signal

import pytest

# Fixture projects (e.g. the small PyTorch project the TUI's scan test reads) hold code to be
# scanned, not tests to run.
collect_ignore = ["fixtures"]


def pytest_configure(config):
    # A suite started in the background by a shell without job control (`make test &` in a script)
    # inherits SIGINT ignored, and so would every child it starts: the tests that press Ctrl-C on a
    # child (exit 130, no child left) would wait out their timeouts. A handler, unlike an ignore, is
    # reset to the default when a child starts, so the children get Ctrl-C as a terminal gives it.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("ADVISOR_KB_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))  # no user config
    monkeypatch.delenv("ADVISOR_CONFIG", raising=False)
    yield


# ---- the real-browser tests' shared fixtures (they call headless_chrome.require() at import) ----------


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module."""
    import headless_chrome

    driver = headless_chrome.start(*headless_chrome.require())
    yield driver
    driver.quit()


def _example_names() -> list[str]:
    from document_examples import EXAMPLES

    return [p.stem for p in EXAMPLES]


@pytest.fixture(scope="module", params=_example_names())
def page(request, tmp_path_factory):
    """(bundled example's name, its HTML review document written to a temporary folder)."""
    from document_examples import built

    html = built(request.param)[2]["html"]
    path = tmp_path_factory.mktemp("html") / f"{request.param}.html"
    path.write_text(html, encoding="utf-8")
    return request.param, path


@pytest.fixture(autouse=True)
def _no_kept_run_queue(monkeypatch):
    """The TUI keeps run-queue readings in advisor.estimates for its probes' plans: a test starts with none,
    so an app run by an earlier test cannot move a later test's plan."""
    from advisor import estimates

    monkeypatch.setattr(estimates, "_queue_seen", [])
    # and the sessions a step competes with are this machine's of the moment: a test that plans or learns
    # reads none (the run queue's rule), unless it stands them in itself (tests/test_estimates_sessions.py)
    monkeypatch.setattr(estimates, "competing_sessions", lambda: None)
    # and the install a plan reads is the tested set's (both frameworks, a CPU build of torch) whatever this
    # machine holds, unless a test stands in another (tests/test_estimates_install.py)
    monkeypatch.setattr(estimates, "missing_frameworks", lambda frameworks: frozenset())
    monkeypatch.setattr(estimates, "torch_cuda_build", lambda: False)
