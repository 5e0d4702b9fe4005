"""The readable summary of `advisor check` (tabulate tables)."""

from __future__ import annotations

import textwrap

from advisor.numbers import mib_text
from advisor.render.tables import grid

from advisor.render.interface import Renderer
from advisor.render.tables import terminal_width
from probes.check.models import CheckReport

_MARK = {"error": "ERROR", "warning": "WARN", "info": "info"}


def _num(value, fmt="{:.0f}", none="-"):
    return none if value is None else fmt.format(value)


def _wrap(text: str, width: int = 70) -> str:
    return "\n".join(textwrap.wrap(text or "", width)) or "-"


def compact_devices(devices: list[str]) -> str:
    """'cuda:0, cuda:1, cuda:2' -> 'cuda:0-2' (16 NPU chips fit in a cell)."""
    groups: list[list] = []  # [prefix, first, last] or [name]
    for d in devices:
        prefix, sep, idx = d.rpartition(":")
        if sep and idx.isdigit():
            i = int(idx)
            if groups and len(groups[-1]) == 3 and groups[-1][0] == prefix and groups[-1][2] == i - 1:
                groups[-1][2] = i
                continue
            groups.append([prefix, i, i])
        else:
            groups.append([d])
    parts = [g[0] if len(g) == 1 else f"{g[0]}:{g[1]}" if g[1] == g[2] else f"{g[0]}:{g[1]}-{g[2]}" for g in groups]
    return ", ".join(parts) or "-"


def _findings(report: CheckReport, width: int) -> str:
    """A grid when finding and fix columns get room enough to read, else one block per finding."""
    marks = [_MARK[f.severity] for f in report.findings]
    code_w = max(len(f.code) for f in report.findings)
    room = width - 13 - max(len(m) for m in marks) - code_w  # 13: the grid's borders and padding
    if room >= 70:
        msg_w = room * 4 // 7
        rows = [
            (m, f.code, _wrap(f.message, msg_w), _wrap(f.fix or "-", room - msg_w))
            for m, f in zip(marks, report.findings)
        ]
        return grid(rows, headers=["", "code", "finding", "fix"], tablefmt="simple_grid")
    blocks = []
    for m, f in zip(marks, report.findings):
        lines = [f"{m:<5} {f.code}", textwrap.indent(_wrap(f.message, width - 6), " " * 6)]
        if f.fix:
            lines.append(textwrap.fill(f.fix, width, initial_indent=" " * 6 + "fix: ", subsequent_indent=" " * 11))
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


class CheckTable(Renderer):
    """The summary, wrapped to `width` columns (default: the terminal's, 100 when piped)."""

    def __init__(self, width: int | None = None) -> None:
        self.width = width

    def format(self, report: CheckReport) -> str:
        return _summary(report, self.width or terminal_width())


def _summary(report: CheckReport, width: int) -> str:
    h = report.host
    cpu, mem = h.cpu, h.memory
    out = []
    cores = f"{_num(cpu.physical_cores)} physical / {_num(cpu.logical_cores)} logical"
    if cpu.limited_by:
        cores += f" (host {cpu.host_logical_cores}; {cpu.limited_by})"
    memory = f"{mib_text(mem.total_mb)} total, {mib_text(mem.available_mb)} available"
    if mem.limited_by:
        memory += f" ({mem.limited_by})"
    rows = [
        ("OS", f"{h.os_release or h.os or '-'} (kernel {h.kernel or '-'})"),
        ("Python", f"{h.python} ({h.python_executable})"),
        ("CPU", f"{cpu.model or '-'} [{cpu.architecture or '-'}]"),
        ("Cores", cores),
        ("Frequency", _num(cpu.frequency_mhz, "{:.0f} MHz")),
        ("Flags", ", ".join(cpu.flags) or "-"),
        ("Memory", memory),
        ("Disk (cache)", f"{mib_text(h.disk.free_mb)} free at {h.disk.path}" if h.disk else "-"),
        (
            "Container",
            (h.container.kind or "yes") + f" ({'; '.join(h.container.hints)})" if h.container.detected else "no",
        ),
    ]
    rows = [(k, _wrap(v, max(30, width - 16))) for k, v in rows]  # 16: the label column
    out.append("Host\n" + grid(rows, tablefmt="simple"))

    if report.accelerators:
        acc_rows = [
            (
                a.vendor,
                a.index,
                a.name,
                f"{mib_text(a.memory_used_mb)} / {mib_text(a.memory_total_mb)}",
                _num(a.utilization_pct, "{:.0f}%"),
                _num(a.temperature_c, "{:.0f} C"),
                _num(a.power_w, "{:.0f} W"),
                len(a.processes) or "-",
            )
            for a in report.accelerators
        ]
        out.append(
            "Accelerators\n"
            + grid(acc_rows, headers=["vendor", "index", "name", "memory used/total", "util", "temp", "power", "procs"])
        )
    notes = []
    nv, asc = report.nvidia, report.ascend
    notes.append(
        f"NVIDIA: {nv.status}"
        + (f" via {nv.source}" if nv.source else "")
        + (f", driver {nv.driver_version}" if nv.driver_version else "")
        + (f", CUDA {nv.cuda_driver_version}" if nv.cuda_driver_version else "")
        + (f" ({nv.reason})" if nv.reason else "")
    )
    notes.append(
        f"Ascend: {asc.status}"
        + (f", npu-smi {asc.smi_version}" if asc.smi_version else "")
        + (f", driver {asc.driver_version}" if asc.driver_version else "")
        + (f", CANN {asc.cann.version}" if asc.cann.version else "")
        + (f" ({asc.reason})" if asc.reason else "")
    )
    out.append("\n".join(textwrap.fill(n, width, subsequent_indent="  ") for n in notes))

    fw_rows = []
    for fw in report.frameworks:
        s = fw.smoke
        if not fw.installed:
            smoke = "-"
        elif s.status == "ok":
            smoke = f"ok in {s.seconds:.1f} s"
        elif s.status == "skipped":
            smoke = f"skipped: {s.error}" if s.error else "skipped"
        else:
            smoke = f"{s.status.upper()}: {s.error or ''}"
        fw_rows.append(
            (
                fw.name,
                fw.version if fw.installed else "not installed",
                fw.build or "-",
                compact_devices(fw.devices),
                _wrap(smoke, max(24, width - 56)),
            )
        )
    out.append("Frameworks\n" + grid(fw_rows, headers=["framework", "version", "build", "devices", "smoke test"]))

    if report.findings:
        out.append("Findings\n" + _findings(report, width))
    else:
        out.append("Findings: none")
    out.append(f"Verdict: {report.verdict.upper()}  ({report.seconds:.1f} s)")
    return "\n\n".join(out) + "\n"
