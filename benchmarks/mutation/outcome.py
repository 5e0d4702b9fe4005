"""How a test run ended for a mutant, as a pytest plugin: only a failing assertion kills.

A failing `assert`, `pytest.fail` or `pytest.raises` that saw nothing raised is an assertion; any other
exception out of a test (a TypeError the mutant caused, say) is an error, which the suite noticed but no
assertion checked; a file that no longer collects is a crash at import. Neither counts as killed.

Loaded in-process by the runner, or with `-p mutation.outcome` by a pytest child, which then writes the
summary to the file named by MUTATION_OUTCOME and ends with the runner whose pid MUTATION_PARENT names.
"""

from __future__ import annotations

import json
import os

import pytest

KILLED, ERRORED, CRASHED, SURVIVED = "killed", "errored", "crashed", "survived"


class Outcome:
    def __init__(self) -> None:
        self.assertions: list[str] = []
        self.errors: list[str] = []
        self.crashes: list[str] = []
        self.passed = 0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = (yield).get_result()
        if report.passed and call.when == "call":
            self.passed += 1
        if not report.failed or call.excinfo is None:
            return
        if call.excinfo.errisinstance((AssertionError, pytest.fail.Exception)):
            self.assertions.append(item.nodeid)
            item.session.shouldstop = "a failing assertion killed the mutant"
        else:
            self.errors.append(f"{item.nodeid}: {call.excinfo.typename}")

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.crashes.append(report.nodeid or "collection")

    @property
    def state(self) -> str:
        if self.assertions:
            return KILLED
        if self.crashes:
            return CRASHED
        if self.errors:
            return ERRORED
        return SURVIVED if self.passed else CRASHED  # no test ran: the selection itself is broken

    def summary(self) -> dict:
        return {
            "state": self.state,
            "by": (self.assertions or self.crashes or self.errors or [""])[0],
            "passed": self.passed,
        }


_plugin = Outcome()


def pytest_configure(config) -> None:
    parent = os.environ.get("MUTATION_PARENT")
    if parent:
        from mutation.bounded import die_with_parent

        die_with_parent(int(parent))
    config.pluginmanager.register(_plugin, "mutation-outcome")


def pytest_unconfigure(config) -> None:
    target = os.environ.get("MUTATION_OUTCOME")
    if target:
        with open(target, "w", encoding="utf-8") as fh:
            json.dump(_plugin.summary(), fh)
