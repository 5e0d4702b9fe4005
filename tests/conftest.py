"""Shared test set-up: keep the user's real cache and knowledge-base overrides out of the tests."""

import pytest

# Fixture projects (e.g. the small PyTorch project the TUI's scan test reads) hold code to be
# scanned, not tests to run.
collect_ignore = ["fixtures"]


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    monkeypatch.delenv("ADVISOR_KB_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))  # no user config
    monkeypatch.delenv("ADVISOR_CONFIG", raising=False)
    yield
