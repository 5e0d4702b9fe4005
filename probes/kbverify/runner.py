"""Run the mapping-table verification: the MindSpore worker on every mapped API (and the in-place
spot checks), the torch worker on the counterparts of those with a spec, then compare.

`verify(entries)`: entries are plain dicts {'id', 'pytorch', 'mindspore'} (the caller reads the
knowledge base; probes never import it). The result is plain data, saved as JSON under the cache dir.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
from pathlib import Path
from typing import Callable, Optional

from probes import hostfacts, launcher
from probes.kbverify import specs

SCHEMA = "1"
CACHE_NAME = "kb-verify.json"
# Outcomes, best first. verified: ran on this device and matched PyTorch; runs: ran, the PyTorch side
# could not be compared; differs: output differs where the table says it does; exists: found, no spec
# to run it; the rest are failures shown beside the scan's findings.
FAILURES = ("missing", "failed", "not_inplace", "mismatch")


def cache_path() -> Path:
    return hostfacts.cache_dir() / CACHE_NAME


def cases_for(entries: list[dict], only: Optional[set[str]] = None) -> list[dict]:
    table = specs.all_specs()
    cases = []
    for e in entries:
        api = e.get("mindspore")
        if not api or not api.startswith("mindspore") or (only and api not in only):
            continue
        cases.append(
            {
                "id": e["id"],
                "api": api,
                "pytorch": e.get("pytorch"),
                "mapping": e.get("mapping"),
                "spec": table.get(api),
            }
        )
    for api, spec in specs.INPLACE.items():
        if only and api not in only:
            continue
        cases.append({"id": "inplace:" + api.rsplit(".", 1)[-1], "api": api, "pytorch": spec["torch"], "spec": spec})
    return cases


def _child(module: str, cases: list[dict], timeout: float, cancel) -> tuple[Optional[dict], str]:
    # in a registered temp folder: a signalled or killed run's cases file is swept with it
    with launcher.workdir("advisor-kbverify-") as folder:
        path = folder / "cases.json"
        path.write_text(json.dumps(cases), encoding="utf-8")
        env = {"OMP_NUM_THREADS": "1", "GLOG_v": "3"}
        out = launcher.run_child(["-m", module, str(path)], timeout=timeout, env_extra=env, cancel=cancel)
    if not out.ok or not out.result:
        return None, out.error or out.status
    return out.result, ""


def _values(o) -> tuple[list[float], list]:
    """(flat values, shapes) of a worker's output (an array, or a list of them)."""
    if isinstance(o, list):
        values, shapes = [], []
        for x in o:
            v, sh = _values(x)
            values += v
            shapes += sh
        return values, shapes
    return list(o.get("values", [])), [o.get("shape")]


def compare(ms_row: dict, torch_row: Optional[dict], spec: Optional[dict]) -> dict:
    status = ms_row["status"]
    out = {"status": status, "error": ms_row.get("error", "")}
    if status != "ok":
        return out
    if not torch_row or torch_row.get("status") != "ok":
        return {"status": "runs", "error": "PyTorch side: " + ((torch_row or {}).get("error") or "not run")}
    a, sa = _values(ms_row["output"])
    b, sb = _values(torch_row["output"])
    if sa != sb:
        return {"status": "mismatch", "error": f"output shape {sa} vs PyTorch {sb}"}
    if spec and spec["compare"] == "values" and a:
        diff = max(abs(x - y) for x, y in zip(a, b))
        out["max_diff"] = diff
        if diff > spec["tol"]:
            return {"status": "mismatch", "error": f"max |diff| {diff:.3g} > {spec['tol']:g}", "max_diff": diff}
    return {**out, "status": "verified"}


def verify(
    entries: list[dict],
    *,
    only: Optional[set[str]] = None,
    timeout: float = 300.0,
    cancel=None,
    on_event: Optional[Callable[[str], None]] = None,
) -> dict:
    cases = cases_for(entries, only)
    say = on_event or (lambda _msg: None)
    say(f"MindSpore worker: {len(cases)} APIs")
    ms_res, ms_err = _child("probes.kbverify.worker_mindspore", cases, timeout, cancel)
    if ms_res is None:
        return {"schema": SCHEMA, "error": f"MindSpore worker: {ms_err}", "results": []}
    with_spec = [c for c in cases if c["spec"]]
    say(f"PyTorch worker: {len(with_spec)} counterparts")
    torch_res, torch_err = _child("probes.kbverify.worker_torch", with_spec, timeout, cancel)
    torch_rows = {r["id"]: r for r in (torch_res or {}).get("rows", [])}
    results = []
    for case, row in zip(cases, ms_res.get("rows", [])):
        verdict = compare(row, torch_rows.get(case["id"]), case["spec"])
        if verdict["status"] == "mismatch" and case.get("mapping") == "differs":
            verdict["status"] = "differs"  # the table already says the defaults differ: expected, shown, no failure
        if verdict["status"] == "runs" and torch_res is None:
            verdict["error"] = f"PyTorch worker: {torch_err}"
        results.append({"id": case["id"], "pytorch": case["pytorch"], "mindspore": case["api"], **verdict})
    counts: dict[str, int] = {}
    for r in results:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    return {
        "schema": SCHEMA,
        "mindspore_version": ms_res.get("version", ""),
        "device": ms_res.get("device", ""),
        "torch_version": (torch_res or {}).get("version", ""),
        "checked_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "counts": counts,
        "results": results,
    }


def save(result: dict, path: Optional[Path] = None) -> Path:
    """Write atomically (a partial file never replaces a good one)."""
    path = Path(path or cache_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".kb-verify-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
    os.replace(tmp, path)
    return path


def load(path: Optional[Path] = None) -> Optional[dict]:
    path = Path(path or cache_path())
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("schema") == SCHEMA else None
