"""`advisor check`: gather the host, accelerators and frameworks (smoke tests in parallel children),
turn what was found into findings with fixes, and a verdict.

Gathering lives in probes/; this module orders it for speed and owns the findings, which are a pure
function of the gathered data plus the environment (tested table-driven).
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

from advisor import __version__
from advisor.extras import install_hint
from advisor.numbers import mib_text
from probes.check.models import Accelerator, CheckReport, ConvCheck, Finding, FrameworkInfo
from probes.hostfacts import install_stamp

ORDER = {"error": 0, "warning": 1, "info": 2}
LOW_DISK_MB = 5 * 1024
LOW_MEMORY_MB = 4 * 1024
CXX_CANDIDATES = ("g++", "clang++", "c++")


# --- gathering ---------------------------------------------------------------------------------


def _own_children_filter(accs: list[Accelerator]) -> None:
    """Drop our own smoke workers from the process lists (they may touch a GPU while we look)."""
    me = os.getpid()
    for acc in accs:
        kept = []
        for proc in acc.processes:
            try:
                cmd = Path(f"/proc/{proc.pid}/cmdline").read_bytes()
                ppid = int(Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
                if b"probes.check.smoke_worker" in cmd and ppid == me:
                    continue
            except (OSError, ValueError, IndexError, TypeError):
                pass
            kept.append(proc)
        acc.processes = kept


def run_check(
    smoke: bool = True,
    timeout: float = 60.0,
    *,
    kb=None,
    use_kb: bool = True,
    progress: Optional[Callable[[str], None]] = None,
    cancel=None,
    started=None,
) -> CheckReport:
    """Gather everything and judge it. Never raises for what it finds on the host.

    `progress(text)` is called (from worker threads) as parts finish; `cancel` is a
    probes.launcher.Cancel that kills the smoke children (they then read "failed: cancelled").
    `started`: the smoke children, already started by the caller (probes.check.frameworks.start_smoke,
    which imports nothing heavy: `advisor check` calls it before importing this module)."""
    say = progress or (lambda text: None)
    # The smoke children are the slow part (framework imports): they start first, so that
    # the rest (device probes, knowledge base) is gathered while the children import their frameworks.
    from probes.check import frameworks as fw_probe

    start = time.monotonic()
    run = started if started is not None or not smoke else fw_probe.start_smoke(timeout, say, cancel)
    try:
        from probes.check.host import collect_host
        from probes.hostfacts import cache_dir  # advisor.cache's folder, without advisor.cache's imports

        frameworks = fw_probe.detect_frameworks()
        host = collect_host(str(cache_dir()))  # ~20 ms; its CPU flags decide when to rerun MindSpore early
        confirmed = _cached_onednn_confirm(frameworks) if smoke else None
        cached_conv = _cached_conv(confirmed)
        if run is not None:
            # On AVX-512 CPUs the oneDNN trap is likely: start the AVX2-capped rerun alongside, unless an
            # earlier check on this host and MindSpore version confirmed it (a third child on 2 cores).
            rerun = confirmed is None
            run.plan(
                confirm_onednn=rerun,
                confirm_early=rerun and "avx512f" in host.cpu.flags,
                conv_known_slow=not rerun,
                conv_cached=cached_conv is not None,
            )
        with ThreadPoolExecutor(max_workers=4) as pool:
            # The device probes answer long before a child has imported its framework and touched a device.
            nvidia_future = pool.submit(_collect_nvidia)
            ascend_future = pool.submit(_collect_ascend)
            kb_future = pool.submit(_load_kb) if use_kb and kb is None else None
            launchers_future = pool.submit(_launcher_findings)
            engines_future = pool.submit(_engine_findings)
            nvidia, gpus = nvidia_future.result()
            say(f"NVIDIA: {nvidia.status} ({nvidia.gpu_count} GPU)")
            ascend, npus = ascend_future.result()
            say(f"Ascend: {ascend.status} ({ascend.chip_count} NPU chips)")
            smoke_results = run.wait() if run is not None else {}
            if kb_future is not None:
                kb, kb_error = kb_future.result()
            else:
                kb_error = None if kb is not None or not use_kb else "not loaded"
    except BaseException:
        if run is not None:
            run.abort()  # no child outlives a check that failed half-way
        raise
    from probes.check.frameworks import apply_smoke, infer_devices, package_version
    from probes.check.models import SmokeResult

    accelerators = gpus + npus
    _own_children_filter(accelerators)
    for fw in frameworks:
        fw.devices = infer_devices(fw, accelerators)
        fw.devices_source = "inferred" if fw.installed else None
        if not fw.installed:
            fw.smoke = SmokeResult(status="skipped", error="not installed")
        elif not smoke:
            fw.smoke = SmokeResult(status="skipped", error="not requested (--no-smoke)")
        elif fw.name in smoke_results:
            apply_smoke(fw, smoke_results[fw.name]["smoke"], smoke_results[fw.name]["payload"])
    _onednn_confirmation(frameworks, confirmed, cached_conv)
    packages = {name: package_version(name) for name in ("numpy", "torch", "mindspore", "torch-npu")}
    report = CheckReport(
        tool_version=__version__,
        created_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        seconds=0.0,
        host=host,
        accelerators=accelerators,
        nvidia=nvidia,
        ascend=ascend,
        frameworks=frameworks,
        packages=packages,
        findings=[],
        verdict="pass",
    )
    report.findings = evaluate(report, env=dict(os.environ), cxx=find_cxx(), kb=kb, kb_error=kb_error)
    report.findings += launchers_future.result()
    report.findings += engines_future.result()
    report.verdict = verdict(report.findings)
    report.seconds = round(time.monotonic() - start, 3)
    return report


def _cached_onednn_confirm(frameworks: list[FrameworkInfo]) -> Optional[dict[str, object]]:
    """The AVX2 rerun an earlier check measured on this host and MindSpore version (advisor.cache),
    or None: no MindSpore, ONEDNN_MAX_CPU_ISA already set (the smoke test then measures the capped
    kernels itself), or nothing cached yet."""
    ms = next((fw for fw in frameworks if fw.name == "mindspore" and fw.installed and fw.version), None)
    if ms is None or "ONEDNN_MAX_CPU_ISA" in os.environ:
        return None
    from advisor.cache import load_onednn_confirm

    return load_onednn_confirm(str(ms.version))


CONV_FIELDS = ("shape", "conv_ms", "gemm_ms", "ratio")


def _cached_conv(confirmed: Optional[dict[str, object]]) -> Optional[dict[str, object]]:
    """The slow convolution an earlier check timed and confirmed (with its AVX2 rerun) on this host,
    MindSpore version and install, or None: then the MindSpore child times it live. Any oneDNN setting
    in the environment (ONEDNN_* / DNNL_*) means the kernels may differ: timed live."""
    conv = confirmed.get("conv") if confirmed else None
    if not isinstance(conv, dict) or any(k.startswith(("ONEDNN_", "DNNL_")) for k in os.environ):
        return None
    numbers_ok = all(isinstance(conv.get(k), (int, float)) and conv[k] > 0 for k in CONV_FIELDS[1:])
    if not numbers_ok or not isinstance(conv.get("shape"), str) or conv.get("install") != install_stamp("mindspore"):
        return None
    return conv


def _onednn_confirmation(
    frameworks: list[FrameworkInfo],
    confirmed: Optional[dict[str, object]],
    cached_conv: Optional[dict[str, object]] = None,
) -> None:
    """A slow MindSpore convolution gets the cached AVX2 rerun; a rerun measured now is cached, with the
    convolution's own timing. A child told to skip the timing (`cached_conv`) gets the cached one,
    dated."""
    ms = next((fw for fw in frameworks if fw.name == "mindspore" and fw.installed and fw.version), None)
    if ms is None or ms.smoke is None:
        return
    if ms.smoke.conv_check is None and cached_conv is not None and ms.smoke.ok:
        ms.smoke.conv_check = ConvCheck(
            **{k: cached_conv[k] for k in CONV_FIELDS}, slow=True, measured=str(confirmed.get("measured") or "earlier")
        )
    check = ms.smoke.conv_check
    if check is None or not check.slow:
        return
    if confirmed is not None:
        check.capped_conv_ms = float(confirmed["capped_conv_ms"])
        check.capped_ratio = float(confirmed["capped_ratio"])
        check.capped_measured = str(confirmed.get("measured") or "earlier")
        if check.measured is None and "conv" not in confirmed:  # an older record: keep this timing too
            _save_confirm(str(ms.version), check, str(confirmed.get("measured") or "earlier"))
    elif check.capped_conv_ms and check.capped_ratio:
        _save_confirm(str(ms.version), check, _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))


def _save_confirm(version: str, check: ConvCheck, measured: str) -> None:
    from advisor.cache import save_onednn_confirm

    conv = {k: getattr(check, k) for k in CONV_FIELDS}
    stamp = install_stamp("mindspore")  # a reinstall or upgrade of the bundled oneDNN changes it
    try:
        save_onednn_confirm(
            version,
            float(check.capped_conv_ms or 0),
            float(check.capped_ratio or 0),
            measured,
            conv={**conv, "install": stamp} if stamp else None,
        )
    except OSError:
        pass  # a read-only cache: the next check measures it again


def _collect_nvidia():
    from probes.check.nvidia import collect_nvidia

    return collect_nvidia()


def _collect_ascend():
    from probes.check.ascend import collect_ascend

    return collect_ascend()


def _launcher_findings() -> list[Finding]:
    """What torchrun and msrun (the scaling probe's launchers) need on this host."""
    try:
        # Imported here, in the pool's thread: the smoke children are already importing their frameworks.
        from advisor.check.multinode import multinode_findings
        from advisor.check.scaling import launcher_findings

        # the multi-node readiness as dicts like the scaling checks' (interfaces, variables, port, rank table)
        return launcher_findings() + [Finding(**f) for f in multinode_findings()]
    except OSError as exc:  # an unreadable /sys or PATH entry: the rest of the check goes on
        return [Finding(severity="info", code="scaling.not_checked", message=f"launcher readiness not checked: {exc}")]


def _engine_findings() -> list[Finding]:
    """The inference engines `advisor probe --deploy` can serve on (facts from probes.deploy.engines)."""
    from probes.deploy.engines import installed_engines

    try:
        engines = installed_engines()
    except (ImportError, OSError) as exc:  # a broken engine install: the rest of the check goes on
        return [Finding(severity="info", code="deploy.not_checked", message=f"inference engines not checked: {exc}")]
    found = [e for e in engines if e["installed"]]
    text = "; ".join(
        f"{e['name']} {e['version'] or ''}".strip() + (f" ({', '.join(e['providers'])})" if e["providers"] else "")
        for e in found
    )
    from advisor.extras import check_line  # which optional extras (pytorch, mindspore, deploy, accuracy) are here

    out = [
        Finding(severity="info", code="extras", message=check_line()),
        Finding(
            severity="info",
            code="deploy.engines",
            message=f"inference engines for `advisor probe --deploy`: {text or 'none'}",
        ),
    ]
    missing = {e["name"]: e for e in engines if not e["installed"]}
    if "onnxruntime" in missing:
        out.append(
            Finding(
                severity="info",
                code="deploy.onnxruntime_missing",
                message="ONNX Runtime is not installed: the deployment probe cannot serve ONNX exports",
                fix=install_hint("deploy"),
            )
        )
    return out


def _load_kb():
    """The knowledge base, or (None, why): check works without it."""
    import knowledge

    try:
        return knowledge.load(), None
    except (knowledge.KnowledgeError, OSError) as exc:  # a bad KB file becomes a finding: the check goes on
        return None, f"{type(exc).__name__}: {exc}"


def _mindspore_last_cuda(kb):
    """MindSpore's last release line with a CUDA build: the newest row of its compatibility matrix
    (frameworks.yaml) whose devices include `gpu`. Without a knowledge base, the bundled one's; None when
    neither can be read."""
    if kb is None:
        kb, _ = _load_kb()
    ms = next((f for f in kb.frameworks if f.id == "mindspore"), None) if kb is not None else None
    rows = [v for v in ms.versions if "gpu" in v.devices] if ms is not None else []
    return max(rows, key=lambda v: _vt(v.version)) if rows else None


def find_cxx(env: Optional[dict] = None) -> Optional[str]:
    """The C++ compiler torch.compile (Inductor) would use: $CXX, else g++/clang++/c++ on PATH."""
    env = os.environ if env is None else env
    if env.get("CXX"):
        return shutil.which(env["CXX"].split()[0], path=env.get("PATH"))
    for name in CXX_CANDIDATES:
        found = shutil.which(name, path=env.get("PATH"))
        if found:
            return found
    return None


def verdict(findings: list[Finding]) -> str:
    severities = {f.severity for f in findings}
    return "fail" if "error" in severities else "warn" if "warning" in severities else "pass"


# --- findings ------------------------------------------------------------------------------------


def _vt(version: Optional[str], n: int = 3) -> tuple:
    """Numeric prefix of a version: '2.13.0+cpu' -> (2, 13, 0); '8.0.RC2' -> (8, 0)."""
    out = []
    for part in re.split(r"[.+\-]", version or ""):
        if not part.isdigit():
            break
        out.append(int(part))
    return tuple(out[:n])


def spec_allows(spec: str, version: str) -> Optional[bool]:
    """A small PEP 440 subset ('>=1.26.4,<2', '<2', '==1.26.*'); None when the spec is not understood."""
    have = _vt(version)
    if not have:
        return None
    for clause in filter(None, (c.strip() for c in spec.split(","))):
        match = re.match(r"^(>=|<=|==|!=|~=|>|<)\s*([0-9][0-9.*]*)$", clause)
        if not match:
            return None
        op, raw = match.groups()
        if raw.endswith(".*"):
            want = _vt(raw[:-2])
            ok = have[: len(want)] == want
            ok = ok if op == "==" else not ok if op == "!=" else None
            if ok is None:
                return None
            if not ok:
                return False
            continue
        want = _vt(raw)
        width = max(len(have), len(want))
        a, b = have + (0,) * (width - len(have)), want + (0,) * (width - len(want))
        ok = {
            ">=": a >= b,
            "<=": a <= b,
            ">": a > b,
            "<": a < b,
            "==": a == b,
            "!=": a != b,
            "~=": a >= b and a[: len(want) - 1] == b[: len(want) - 1],
        }[op]
        if not ok:
            return False
    return True


def _matrix_entry(framework, version: str):
    """The KB version entry for an installed version: exact, else the longest matching prefix
    ('2.2.x' and '2.1' are series)."""
    base = version.split("+")[0]
    best, best_len = None, -1
    for entry in framework.versions:
        v = entry.version[:-2] if entry.version.endswith(".x") else entry.version
        if base == v or base.startswith(v + "."):
            if len(v) > best_len:
                best, best_len = entry, len(v)
    return best


def _compat_findings(fw: FrameworkInfo, report: CheckReport, kb) -> list[Finding]:
    kb_fw = next((f for f in kb.frameworks if f.id == fw.name), None)
    if kb_fw is None or not fw.version:
        return []
    entry = _matrix_entry(kb_fw, fw.version)
    if entry is None:
        known = ", ".join(v.version for v in kb_fw.versions[-4:])
        return [
            Finding(
                severity="info",
                code="compat_unknown_version",
                message=f"{fw.name} {fw.version} is not in the knowledge base's compatibility matrix "
                f"(known: ... {known}); compatibility not checked",
                fix=None,
                evidence=f"knowledge base {kb.version}, framework {kb_fw.id}",
            )
        ]
    out = []
    evidence = f"knowledge base {kb_fw.id} {entry.version}: {entry.source} ({entry.confidence})"
    py = report.host.python or ""
    py_mm = ".".join(py.split(".")[:2])
    if entry.python and py_mm and py_mm not in entry.python:
        out.append(
            Finding(
                severity="warning",
                code="compat_python",
                message=f"{fw.name} {fw.version} is paired with Python {', '.join(entry.python)}; "
                f"this interpreter is {py}",
                fix=f"use Python {entry.python[-1]} for {fw.name} {entry.version}",
                evidence=evidence,
            )
        )
    numpy = report.packages.get("numpy")
    if entry.numpy and numpy and spec_allows(entry.numpy, numpy) is False:
        out.append(
            Finding(
                severity="warning" if fw.name != "mindspore" else "error",
                code="compat_numpy",
                message=f"{fw.name} {fw.version} needs numpy {entry.numpy}; installed {numpy}",
                fix=f'pip install "numpy{entry.numpy}"',
                evidence=evidence,
            )
        )
    cann = report.ascend.cann.version
    if entry.cann and cann and not any(cann == c or cann.startswith(c + ".") for c in entry.cann):
        out.append(
            Finding(
                severity="warning",
                code="compat_cann",
                message=f"{fw.name} {fw.version} is paired with CANN {', '.join(entry.cann)}; installed CANN {cann}",
                fix=f"install CANN {entry.cann[0]} or the {fw.name} release built for CANN {cann}",
                evidence=evidence,
            )
        )
    torch = report.packages.get("torch")
    if fw.name == "torch_npu" and entry.torch and torch and _vt(torch) != _vt(entry.torch):
        out.append(
            Finding(
                severity="error",
                code="compat_torch",
                message=f"torch_npu {fw.version} is built for torch {entry.torch}; installed torch {torch}",
                fix=f'pip install "torch=={entry.torch}"',
                evidence=evidence,
            )
        )
    return out


def _set_env_script(path: Optional[str]) -> str:
    if not path:
        return "/usr/local/Ascend/ascend-toolkit/set_env.sh"
    p = Path(path)
    return str((p.parent if p.name == "latest" else p) / "set_env.sh")


@dataclass(frozen=True)
class _Facts:
    """What the findings are judged from: the gathered report, the environment, the compiler and the
    knowledge base, with the lookups every pass shares."""

    report: CheckReport
    env: dict
    cxx: Optional[str]
    kb: Any
    kb_error: Optional[str]
    fws: dict[str, FrameworkInfo]
    installed: set[str]
    gpus: list
    npus: list


def evaluate(
    report: CheckReport, env: dict, cxx: Optional[str], kb=None, kb_error: Optional[str] = None
) -> list[Finding]:
    """All findings for a gathered report, pass by pass (PASSES), errors first. Pure: everything it looks
    at is passed in."""
    fws = {fw.name: fw for fw in report.frameworks}
    facts = _Facts(
        report=report,
        env=env,
        cxx=cxx,
        kb=kb,
        kb_error=kb_error,
        fws=fws,
        installed={n for n, fw in fws.items() if fw.installed},
        gpus=[a for a in report.accelerators if a.vendor == "nvidia"],
        npus=[a for a in report.accelerators if a.vendor == "huawei"],
    )
    found = [finding for judge in PASSES for finding in judge(facts)]
    return sorted(found, key=lambda x: ORDER[x.severity])  # stable: each severity in the passes' order


def _framework_findings(c: _Facts) -> list[Finding]:
    """Frameworks present and working: each installed one passed its smoke test."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, installed = c.report, c.installed
    if not installed & {"pytorch", "mindspore"}:
        add(
            severity="error",
            code="no_framework",
            message="neither PyTorch nor MindSpore is installed",
            fix=install_hint("pytorch,mindspore"),
        )
    else:
        for name, extra in (("pytorch", "pytorch"), ("mindspore", "mindspore")):
            if name not in installed:
                add(
                    severity="info",
                    code=f"{name}_missing",
                    message=f"{name} is not installed: it is not checked",
                    fix=install_hint(extra),
                )
    for fw in report.frameworks:
        s = fw.smoke
        if not fw.installed or s.status in ("ok", "skipped"):
            continue
        where = f" ({s.seconds:.0f} s)" if s.seconds else ""
        if s.status == "timeout":
            add(
                severity="error",
                code="smoke_timeout",
                message=f"{fw.name} smoke test hung and was killed{where}: {s.error}",
                fix=f"run `python -c 'import {_module(fw.name)}'` by hand to see where it stops; check "
                "drivers and the devices' health",
                evidence="live smoke test",
            )
        else:
            add(
                severity="error",
                code="smoke_failed",
                message=f"{fw.name} smoke test failed{where}: {s.error}",
                fix="see smoke.output_tail in `advisor check --json` for the framework's own message",
                evidence="live smoke test",
            )
    return f


def _numpy_findings(c: _Facts) -> list[Finding]:
    """NumPy 2 under MindSpore."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, installed, fws = c.report, c.installed, c.fws
    numpy = report.packages.get("numpy")
    if "mindspore" in installed and numpy and _vt(numpy)[:1] >= (2,):
        add(
            severity="error",
            code="mindspore_numpy2",
            message=f"MindSpore {fws['mindspore'].version} with NumPy {numpy}: MindSpore is built against the "
            "NumPy 1.x ABI (PyNative steps fail, numpy scalars are rejected)",
            fix='pip install "numpy>=1.26.4,<2"',
            evidence="packages installed; measured-here.md",
        )
    return f


def _cuda_findings(c: _Facts) -> list[Finding]:
    """MindSpore on NVIDIA GPUs past its last CUDA line (the knowledge base's matrix)."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    fws, gpus, kb = c.fws, c.gpus, c.kb
    ms = fws.get("mindspore")
    last_cuda = _mindspore_last_cuda(kb) if ms and ms.installed and gpus else None
    if ms and last_cuda is not None and _vt(ms.version)[:2] > _vt(last_cuda.version)[:2]:
        newest_python = max(last_cuda.python, key=_vt) if last_cuda.python else None
        add(
            severity="warning",
            code="mindspore_cuda_unsupported",
            message=f"{len(gpus)} NVIDIA GPU(s) here, but MindSpore {ms.version} has no CUDA backend (wheels "
            f"carry it only up to {last_cuda.version}): MindSpore will run on the CPU",
            fix=f"use PyTorch on these GPUs, or MindSpore on an Ascend host; MindSpore {last_cuda.version}"
            + (f" (Python <= {newest_python})" if newest_python else "")
            + " is the last line with a CUDA build",
            evidence=f"knowledge base mindspore {last_cuda.version}: {last_cuda.source} ({last_cuda.confidence})",
        )
    return f


def _pytorch_findings(c: _Facts) -> list[Finding]:
    """PyTorch builds against the GPUs, the compiler torch.compile needs, torch_npu against torch."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, fws, gpus, cxx, kb = c.report, c.fws, c.gpus, c.cxx, c.kb
    pt = fws.get("pytorch")
    if pt and pt.installed:
        cuda_build = (pt.build or "").startswith("cuda")
        usable = [d for d in pt.devices if d.startswith("cuda")] if pt.devices_source == "smoke" else gpus
        if cuda_build and not usable:
            add(
                severity="warning",
                code="torch_cuda_without_gpu",
                message=f"torch {pt.version} is a CUDA build ({pt.build}) but no usable NVIDIA GPU was found"
                + (f" ({report.nvidia.reason})" if report.nvidia.reason else ""),
                fix="install the NVIDIA driver, or the smaller CPU wheel: "
                "pip install torch --index-url https://download.pytorch.org/whl/cpu",
            )
        if gpus and pt.build == "cpu":
            add(
                severity="warning",
                code="torch_cpu_build_with_gpu",
                message=f"{len(gpus)} NVIDIA GPU(s) here but torch {pt.version} is a CPU-only build",
                fix="install a CUDA build matching the driver"
                + (
                    f" (driver supports CUDA {report.nvidia.cuda_driver_version})"
                    if report.nvidia.cuda_driver_version
                    else ""
                )
                + ", e.g. pip install torch --index-url https://download.pytorch.org/whl/cu124",
            )
        if cxx is None:
            add(
                severity="warning",
                code="no_cxx_compiler",
                message="no C++ compiler on PATH: torch.compile fails (InductorError: InvalidCxxCompiler); "
                "eager PyTorch is unaffected",
                fix="install one (apt-get install g++) or point CXX at it",
            )
    tn = fws.get("torch_npu")
    torch_v = report.packages.get("torch")
    if tn and tn.installed and torch_v and kb is None and _vt(tn.version) != _vt(torch_v):
        add(
            severity="error",
            code="compat_torch",
            message=f"torch_npu {tn.version} and torch {torch_v}: torch_npu releases are built for the torch "
            "release with the same number",
            fix=f'pip install "torch=={".".join(map(str, _vt(tn.version)))}"',
        )
    return f


def _onednn_findings(c: _Facts) -> list[Finding]:
    """The oneDNN reference-kernel trap, measured live in the MindSpore worker, and its cap set globally."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    ms, pt, env = c.fws.get("mindspore"), c.fws.get("pytorch"), c.env
    if ms and ms.installed and ms.smoke.conv_check and ms.smoke.conv_check.slow:
        c = ms.smoke.conv_check
        confirm = ""
        if c.capped_conv_ms is not None:
            confirm = (
                f"; rerun with ONEDNN_MAX_CPU_ISA=AVX2: {c.capped_conv_ms:.1f} ms "
                f"({c.conv_ms / max(c.capped_conv_ms, 1e-3):.0f}x faster)"
            )
            if c.capped_measured:
                confirm += f" (the AVX2 rerun measured on this host, {c.capped_measured}; `advisor probe --clear-cache` remeasures)"
        if c.measured:
            confirm += (
                f"; the convolution timed by an earlier check on this host and MindSpore install, {c.measured} "
                "(`advisor probe --clear-cache` times it again)"
            )
        elif c.capped_error:
            confirm = f"; the AVX2 rerun could not confirm the fix ({c.capped_error})"
        add(
            severity="warning",
            code="mindspore_onednn_reference_conv",
            message=f"MindSpore convolutions fall back to oneDNN reference kernels on this CPU: conv {c.shape} "
            f"took {c.conv_ms:.1f} ms, {c.ratio:.0f}x a GEMM of the same FLOPs ({c.gemm_ms:.2f} ms){confirm}. "
            "CNN training runs 10-60x slower",
            fix="set ONEDNN_MAX_CPU_ISA=AVX2 in the environment of MindSpore processes only "
            "(e.g. `ONEDNN_MAX_CPU_ISA=AVX2 python train_ms.py`); never for PyTorch processes, which it slows",
            evidence="measured live in the MindSpore smoke test",
        )
    if env.get("ONEDNN_MAX_CPU_ISA") and pt and pt.installed:
        add(
            severity="warning",
            code="onednn_cap_global",
            message=f"ONEDNN_MAX_CPU_ISA={env['ONEDNN_MAX_CPU_ISA']} is set for every process here; PyTorch also "
            "reads it and gets slower",
            fix="set it only in MindSpore processes' environment, not in the shell profile",
        )
    return f


def _accelerator_findings(c: _Facts) -> list[Finding]:
    """Accelerators busy or unhealthy, and device probes that failed."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, gpus, npus = c.report, c.gpus, c.npus
    for acc in gpus + npus:
        if acc.processes:
            kind = "GPU" if acc.vendor == "nvidia" else "NPU chip"
            used = sum(p.memory_mb or 0 for p in acc.processes)
            who = ", ".join(f"{p.name or '?'} (pid {p.pid})" for p in acc.processes[:3])
            visible = "CUDA_VISIBLE_DEVICES" if acc.vendor == "nvidia" else "ASCEND_RT_VISIBLE_DEVICES"
            add(
                severity="warning",
                code="gpu_busy" if acc.vendor == "nvidia" else "npu_busy",
                message=f"{kind} {acc.index} ({acc.name}) is used by {len(acc.processes)} other process(es): "
                f"{who}; {mib_text(used, '?')} taken",
                fix=f"pick free devices ({visible}) or wait: training and measurements on a shared "
                "device are slower and may run out of memory",
            )
        if acc.health and acc.health.upper() not in ("OK", "HEALTHY"):
            add(
                severity="warning",
                code="npu_unhealthy",
                message=f"NPU chip {acc.index} ({acc.name}, NPU {acc.npu_id}) reports health {acc.health}",
                fix=f"npu-smi info -t health -i {acc.npu_id} shows the alarm; see the Ascend fault guide",
            )
    if report.nvidia.status == "failed":
        add(
            severity="warning",
            code="nvidia_probe_failed",
            message=f"NVIDIA GPUs could not be read: {report.nvidia.reason}",
            fix="check the driver with `nvidia-smi`",
        )
    if report.ascend.status == "failed":
        add(
            severity="warning",
            code="ascend_probe_failed",
            message=f"Ascend NPUs could not be read: {report.ascend.reason}",
            fix="check the driver with `npu-smi info`",
        )
    return f


def _ascend_findings(c: _Facts) -> list[Finding]:
    """The Ascend software stack: CANN installed and sourced, devices visible."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, npus = c.report, c.npus
    if npus:
        cann = report.ascend.cann
        if not cann.version:
            add(
                severity="error",
                code="cann_missing",
                message=f"{len(npus)} NPU chip(s) but no CANN toolkit found (ASCEND_TOOLKIT_HOME, ASCEND_HOME_PATH, "
                "/usr/local/Ascend/{ascend-toolkit/latest,cann})",
                fix="install the CANN toolkit matching the driver "
                + (f"({report.ascend.driver_version})" if report.ascend.driver_version else ""),
            )
        elif not cann.env_home or cann.lib_on_ld_path is False:
            missing = (
                "ASCEND_TOOLKIT_HOME / ASCEND_HOME_PATH unset"
                if not cann.env_home
                else "its lib64 is not on LD_LIBRARY_PATH"
            )
            add(
                severity="error",
                code="cann_not_sourced",
                message=f"CANN {cann.version} is installed at {cann.path} but its environment is not sourced "
                f"({missing}): frameworks cannot load the Ascend runtime",
                fix=f"source {_set_env_script(cann.path)} (add it to the job script or shell profile)",
            )
        if len(npus) > 1 and not report.ascend.visible_devices:
            add(
                severity="warning",
                code="ascend_visible_devices_unset",
                message=f"{len(npus)} NPU chips and neither ASCEND_RT_VISIBLE_DEVICES nor ASCEND_DEVICE_ID is set: "
                "every job defaults to device 0",
                fix="export ASCEND_RT_VISIBLE_DEVICES=0,1,... for each job (msrun / torchrun set ranks per device)",
            )
        if report.ascend.status == "ok" and not any(re.search(r"davinci\d+$", n) for n in report.ascend.device_nodes):
            add(
                severity="warning",
                code="ascend_no_device_nodes",
                message="npu-smi lists NPUs but no /dev/davinci* node is visible: frameworks cannot open them",
                fix="run the container with the devices: --device /dev/davinci0 --device /dev/davinci_manager "
                "--device /dev/devmm_svm --device /dev/hisi_hdc",
            )
    return f


def _resource_findings(c: _Facts) -> list[Finding]:
    """Host resources: CPUs, memory and disk."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report = c.report
    host = report.host
    if host.cpu.limited_by:
        add(
            severity="info",
            code="cpu_limited",
            message=f"{host.cpu.logical_cores} of {host.cpu.host_logical_cores} CPUs usable ({host.cpu.limited_by}); "
            "thread counts and measurements use the smaller number",
            fix=None,
        )
    if host.memory.available_mb is not None and host.memory.available_mb < LOW_MEMORY_MB:
        add(
            severity="warning",
            code="low_memory",
            message=f"only {mib_text(host.memory.available_mb, '?')} of memory available"
            + (f" ({host.memory.limited_by})" if host.memory.limited_by else ""),
            fix="close other jobs or raise the container's memory limit; MindSpore alone takes ~400 MB after import",
        )
    if host.disk and host.disk.free_mb is not None and host.disk.free_mb < LOW_DISK_MB:
        add(
            severity="warning",
            code="low_disk",
            message=f"only {mib_text(host.disk.free_mb, '?')} free where the cache lives ({host.disk.path})",
            fix="free space or set XDG_CACHE_HOME to a larger disk",
        )
    return f


def _compat_matrix_findings(c: _Facts) -> list[Finding]:
    """Installed versions against the knowledge base's compatibility matrix."""
    f: list[Finding] = []
    add = lambda *a, **k: f.append(Finding(*a, **k))  # noqa: E731
    report, kb, kb_error, installed = c.report, c.kb, c.kb_error, c.installed
    if kb is not None:
        for fw in report.frameworks:
            if fw.installed:
                f.extend(_compat_findings(fw, report, kb))
        for acc in report.accelerators:
            if acc.source != "/dev" and _kb_find(kb, acc.name) is None:
                add(
                    severity="info",
                    code="accelerator_unknown",
                    message=f"{acc.name} is not in the knowledge base: no peak figures for it",
                    fix=None,
                )
                break
    elif kb_error and installed:
        add(
            severity="info",
            code="compat_not_checked",
            message=f"knowledge base unavailable, compatibility matrix not checked: {kb_error}",
            fix=None,
        )
    return f


PASSES = (
    _framework_findings,
    _numpy_findings,
    _cuda_findings,
    _pytorch_findings,
    _onednn_findings,
    _accelerator_findings,
    _ascend_findings,
    _resource_findings,
    _compat_matrix_findings,
)


def _kb_find(kb, name: str):
    try:
        return kb.find_accelerator(name)
    except (AttributeError, TypeError, ValueError):  # a user KB entry that breaks the lookup: no match
        return None


def _module(name: str) -> str:
    return {"pytorch": "torch", "mindspore": "mindspore", "torch_npu": "torch_npu"}[name]
