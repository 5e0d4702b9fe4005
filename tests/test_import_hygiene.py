"""The core never imports Textual, and importing it loads no framework."""

import subprocess
import sys

import pytest

CORE_MODULES = ["advisor", "advisor.cli", "knowledge", "probes", "probes.launcher"]


@pytest.mark.parametrize("module", CORE_MODULES)
def test_core_module_imports_no_ui_and_no_framework(module):
    code = (
        f"import importlib, sys; importlib.import_module({module!r});"
        "bad = [m for m in ('textual', 'torch', 'mindspore') if m in sys.modules];"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imported {out.stdout.strip()}"
