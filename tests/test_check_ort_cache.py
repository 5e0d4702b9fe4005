"""`advisor check` lists ONNX Runtime's execution providers from a cache kept per installed
onnxruntime (version and package folder), so the parent does not import onnxruntime beside its smoke
children on every run. The list is ONNX Runtime's own, asked once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("onnxruntime")

PROBE = """
import json, sys
from probes.deploy.engines import installed_engines
row = next(r for r in installed_engines() if r["name"] == "onnxruntime")
print(json.dumps({"providers": row["providers"], "imported": "onnxruntime" in sys.modules}))
"""


def _run(cache: Path) -> dict:
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(cache), "PYTHONPATH": str(ROOT), "HOME": str(cache)}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_second_check_reads_the_providers_without_importing_onnxruntime(tmp_path):
    import onnxruntime

    first = _run(tmp_path)
    assert first["imported"] and first["providers"] == list(onnxruntime.get_available_providers())
    kept = json.loads((tmp_path / "framework-advisor" / "ort-providers.json").read_text())
    assert kept["providers"] == first["providers"] and kept["stamp"].startswith(onnxruntime.__version__)
    second = _run(tmp_path)
    assert second == {"providers": first["providers"], "imported": False}


def test_a_stale_or_broken_cache_is_asked_again(tmp_path):
    folder = tmp_path / "framework-advisor"
    folder.mkdir()
    (folder / "ort-providers.json").write_text(json.dumps({"stamp": "0.0-0", "providers": ["Made-up"]}))
    fresh = _run(tmp_path)
    assert fresh["imported"] and "Made-up" not in fresh["providers"]
    (folder / "ort-providers.json").write_text("{not json")
    assert _run(tmp_path)["imported"]
    assert [p.name for p in folder.iterdir()] == ["ort-providers.json"]  # no temp file left
