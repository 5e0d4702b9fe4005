"""Host: what `advisor check` sees, live: host, accelerators, frameworks and their smoke tests,
findings with their fixes. `r` runs the check again (in a worker; the screen stays usable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Footer, Header, Static

from tui import actions
from tui.data import fmt_num, get
from tui.glyphs import ellipsis
from tui.messages import HostChanged
from tui.providers import as_data
from tui.screens.base import AdvisorScreen

if TYPE_CHECKING:
    from probes.check.models import CheckReport

    HostData = Union[CheckReport, dict]  # the host check, or the same read back as a mapping

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
VERDICT_STYLE = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red"}
INTERESTING_FLAGS = ("avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16", "neon", "sve", "asimd")


class HostScreen(AdvisorScreen):
    SUB_TITLE = "Host check"
    ACTIONS = actions.HOST
    BINDINGS = actions.bindings(ACTIONS)

    def compose(self) -> ComposeResult:
        yield Header()
        with VerticalScroll(id="host-body"):
            yield Static(id="host-status")
            yield Static(id="host-info", classes="panel")
            yield Static(id="host-accelerators", classes="panel")
            yield Static(id="host-frameworks", classes="panel")
            yield Static(id="host-findings", classes="panel")
        yield Footer(compact=True, show_command_palette=False)  # ctrl+p is in the help (80 columns)

    def action_refresh_check(self) -> None:
        self.app.refresh_host()

    def on_host_changed(self, _: HostChanged) -> None:
        self.when_shown("host", self.refresh_view)

    def refresh_view(self) -> None:
        app = self.app
        report = as_data(app.state.host.report)
        status = self.query_one("#host-status", Static)
        if app.state.host.checking:
            status.update(
                Text(
                    f"Checking this host (framework smoke tests run in their own "
                    f"processes){ellipsis()} {app.state.host.progress}",
                    style="italic",
                )
            )
        elif app.state.host.error:
            status.update(Text(f"Host check failed: {app.state.host.error}. Press r to retry.", style="bold red"))
        elif report is None:
            status.update(Text("No host check yet. Press r to run it.", style="italic"))
        else:
            verdict = str(get(report, "verdict", default="?"))
            status.update(
                Text.assemble("Verdict: ", (verdict.upper(), VERDICT_STYLE.get(verdict, "bold")), "   (r: check again)")
            )
        self.query_one("#host-info", Static).update(host_table(report))
        self.query_one("#host-accelerators", Static).update(accelerator_table(report))
        self.query_one("#host-frameworks", Static).update(framework_table(report))
        self.query_one("#host-findings", Static).update(findings_view(report))


def _table(title: str, *columns: str) -> Table:
    table = Table(
        title=title,
        title_justify="left",
        title_style="bold",
        expand=True,
        show_edge=False,
        pad_edge=False,
        header_style="bold dim",
    )
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def host_table(report: HostData) -> RenderableType:
    host = get(report, "host")
    if not host:
        return Text("")
    table = Table.grid(padding=(0, 2))
    table.title = "Host"
    table.title_justify = "left"
    table.title_style = "bold"
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    cpu = get(host, "cpu", default={})
    mem = get(host, "memory", default={})
    flags = [f for f in get(cpu, "flags", default=[]) if f in INTERESTING_FLAGS]
    rows = [
        ("System", " ".join(str(x) for x in (get(host, "os"), get(host, "kernel")) if x)),
        ("Python", str(get(host, "python", default="-"))),
        (
            "CPU",
            f"{get(cpu, 'model', default='?')}  ({get(cpu, 'physical_cores', default='?')} "
            f"physical / {get(cpu, 'logical_cores', default='?')} logical cores)",
        ),
        ("CPU flags", ", ".join(flags) or "-"),
        ("Memory", f"{fmt_num(get(mem, 'available_mb'), 0)} MB free of {fmt_num(get(mem, 'total_mb'), 0)} MB"),
    ]
    container = get(host, "container")
    if get(container, "detected"):
        cgroup = get(container, "cgroup", default={})
        limits = [
            f"{fmt_num(get(cgroup, 'cpu_quota'), 1)} CPUs" if get(cgroup, "cpu_quota") else "",
            f"{fmt_num(get(cgroup, 'memory_limit_mb'), 0)} MB" if get(cgroup, "memory_limit_mb") else "",
        ]
        limits = [x for x in limits if x]
        rows.append(
            (
                "Container",
                f"{get(container, 'kind', default='yes')}" + (f" (limited to {', '.join(limits)})" if limits else ""),
            )
        )
    for name, value in rows:
        table.add_row(name, value)
    return table


def accelerator_table(report: HostData) -> RenderableType:
    if report is None:
        return Text("")
    accelerators = get(report, "accelerators", default=[])
    stacks = stack_lines(report)
    if not accelerators:
        return Group(Text.assemble(("Accelerators  ", "bold"), ("none found: CPU only", "dim")), *stacks)
    table = _table("Accelerators", "#", "Vendor", "Name", "Memory used / total", "Busy")
    for acc in accelerators:
        procs = get(acc, "processes", default=[]) or []
        table.add_row(
            str(get(acc, "index", default="")),
            str(get(acc, "vendor", default="")),
            str(get(acc, "name", default="")),
            f"{fmt_num(get(acc, 'memory_used_mb'), 0)} / {fmt_num(get(acc, 'memory_total_mb'), 0)} MB",
            Text(f"{len(procs)} process(es)", style="yellow") if procs else "",
        )
    return Group(table, *stacks)


def stack_lines(report: HostData) -> list:
    """One line each for the NVIDIA and Ascend software stacks: versions, or why absent."""
    lines = []
    nvidia, ascend = get(report, "nvidia"), get(report, "ascend")
    if nvidia is not None:
        if get(nvidia, "status") == "ok":
            text = (
                f"driver {get(nvidia, 'driver_version', default='?')}, CUDA "
                f"{get(nvidia, 'cuda_driver_version', default='?')} (via {get(nvidia, 'source', default='?')})"
            )
        else:
            text = f"{get(nvidia, 'status', default='?')}: {get(nvidia, 'reason', default='')}"
        lines.append(Text.assemble(("  NVIDIA  ", "dim"), text))
    if ascend is not None:
        if get(ascend, "status") == "ok":
            text = (
                f"driver {get(ascend, 'driver_version', default='?')}, CANN "
                f"{get(ascend, 'cann', 'version', default='not found')}"
            )
        else:
            text = f"{get(ascend, 'status', default='?')}: {get(ascend, 'reason', default='')}"
        lines.append(Text.assemble(("  Ascend  ", "dim"), text))
    return lines


def framework_table(report: HostData) -> RenderableType:
    if report is None:
        return Text("")
    table = _table("Frameworks", "Name", "Version", "Devices", "Smoke test")
    for fw in get(report, "frameworks", default=[]):
        if not get(fw, "installed", default=False):
            table.add_row(str(get(fw, "name")), Text("not installed", style="dim"), "", "")
            continue
        smoke = get(fw, "smoke")
        if smoke is None or get(smoke, "ok") is None:
            smoke_text = Text(str(get(smoke, "status", default="not run")), style="dim")
        elif get(smoke, "ok"):
            smoke_text = Text(f"ok {fmt_num(get(smoke, 'seconds'), 1, ' s')}", style="green")
        else:
            why = get(smoke, "error") or get(smoke, "status") or "failed"
            smoke_text = Text(f"{str(get(smoke, 'status', default='failed')).upper()}: {why}", style="red")
        devices = get(fw, "devices", default=[])
        table.add_row(
            str(get(fw, "name")),
            str(get(fw, "version", default="?")),
            ", ".join(str(d) for d in devices) or "-",
            smoke_text,
        )
    return table


def findings_view(report: HostData) -> RenderableType:
    if report is None:
        return Text("")
    findings = get(report, "findings", default=[])
    if not findings:
        return Text.assemble(("Findings  ", "bold"), ("nothing to fix", "green"))
    parts: list = [Text("Findings", style="bold")]
    for finding in findings:
        severity = str(get(finding, "severity", default="info"))
        line = Text.assemble(
            (f"{severity.upper():7}", SEVERITY_STYLE.get(severity, "")),
            " ",
            (str(get(finding, "code", default="")), "dim"),
            "  ",
            str(get(finding, "message", default="")),
        )
        parts.append(line)
        fix = get(finding, "fix")
        if fix:
            parts.append(Text(f"        fix: {fix}", style="italic"))
    return Group(*parts)
