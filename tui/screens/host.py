"""Host: what `advisor check` sees, live: host, accelerators, frameworks and their smoke tests,
findings with their fixes. `r` runs the check again (in a worker; the screen stays usable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Header, Static

from advisor.numbers import mib_text
from tui import actions
from tui.data import fmt_num, given
from tui.glyphs import ellipsis
from tui.messages import HostChanged
from tui.screens.base import AdvisorScreen
from tui.widgets.footer import Footer

if TYPE_CHECKING:
    from probes.check.models import CheckReport

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
VERDICT_STYLE = {"pass": "bold green", "warn": "bold yellow", "fail": "bold red"}
FINDING_INDENT = 8  # under the severity and code, as the CLI sets them
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
        report = app.state.host.report
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
            verdict = report.verdict
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


def host_table(report: Optional[CheckReport]) -> RenderableType:
    if report is None:
        return Text("")
    host = report.host
    table = Table.grid(padding=(0, 2))
    table.title = "Host"
    table.title_justify = "left"
    table.title_style = "bold"
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    cpu, mem = host.cpu, host.memory
    flags = [f for f in cpu.flags if f in INTERESTING_FLAGS]
    rows = [
        ("System", " ".join(x for x in (host.os, host.kernel) if x)),
        ("Python", given(host.python, "-")),
        (
            "CPU",
            f"{given(cpu.model, '?')}  ({given(cpu.physical_cores, '?')} "
            f"physical / {given(cpu.logical_cores, '?')} logical cores)",
        ),
        ("CPU flags", ", ".join(flags) or "-"),
        ("Memory", f"{mib_text(mem.available_mb, '?')} free of {mib_text(mem.total_mb, '?')}"),
    ]
    container = host.container
    if container.detected:
        cgroup = container.cgroup
        limits = [
            f"{fmt_num(cgroup.cpu_quota, 1)} CPUs" if cgroup.cpu_quota else "",
            mib_text(cgroup.memory_limit_mb) if cgroup.memory_limit_mb else "",
        ]
        limits = [x for x in limits if x]
        rows.append(
            ("Container", given(container.kind, "yes") + (f" (limited to {', '.join(limits)})" if limits else ""))
        )
    for name, value in rows:
        table.add_row(name, value)
    return table


def accelerator_table(report: Optional[CheckReport]) -> RenderableType:
    if report is None:
        return Text("")
    accelerators = report.accelerators
    stacks = stack_lines(report)
    if not accelerators:
        return Group(Text.assemble(("Accelerators  ", "bold"), ("none found: CPU only", "dim")), *stacks)
    table = _table("Accelerators", "#", "Vendor", "Name", "Memory used / total", "Busy")
    for acc in accelerators:
        procs = acc.processes
        table.add_row(
            str(acc.index),
            acc.vendor,
            acc.name,
            f"{mib_text(acc.memory_used_mb)} / {mib_text(acc.memory_total_mb)}",
            Text(f"{len(procs)} process(es)", style="yellow") if procs else "",
        )
    return Group(table, *stacks)


def stack_lines(report: CheckReport) -> list:
    """One line each for the NVIDIA and Ascend software stacks: versions, or why absent."""
    nvidia, ascend = report.nvidia, report.ascend
    if nvidia.status == "ok":
        text = (
            f"driver {given(nvidia.driver_version, '?')}, CUDA "
            f"{given(nvidia.cuda_driver_version, '?')} (via {given(nvidia.source, '?')})"
        )
    else:
        text = f"{nvidia.status}: {given(nvidia.reason, '')}"
    lines = [_hanging("  NVIDIA  ", text)]
    if ascend.status == "ok":
        text = f"driver {given(ascend.driver_version, '?')}, CANN {given(ascend.cann.version, 'not found')}"
    else:
        text = f"{ascend.status}: {given(ascend.reason, '')}"
    lines.append(_hanging("  Ascend  ", text))
    return lines


def _hanging(label: str, text: str) -> RenderableType:
    """A label and its text, the text's wrapped lines indented under its first (not under the label)."""
    from rich.table import Table

    grid = Table.grid()
    grid.add_column(no_wrap=True, style="dim")
    grid.add_column(overflow="fold")
    grid.add_row(label, text)
    return grid


def framework_table(report: Optional[CheckReport]) -> RenderableType:
    if report is None:
        return Text("")
    table = _table("Frameworks", "Name", "Version", "Devices", "Smoke test")
    for fw in report.frameworks:
        if not fw.installed:
            table.add_row(fw.name, Text("not installed", style="dim"), "", "")
            continue
        smoke = fw.smoke
        if smoke.ok is None:
            smoke_text = Text(smoke.status, style="dim")
        elif smoke.ok:
            smoke_text = Text(f"ok {fmt_num(smoke.seconds, 1, ' s')}", style="green")
        else:
            smoke_text = Text(f"{smoke.status.upper()}: {smoke.error or smoke.status}", style="red")
        table.add_row(
            fw.name,
            given(fw.version, "?"),
            ", ".join(fw.devices) or "-",
            smoke_text,
        )
    return table


def findings_view(report: Optional[CheckReport]) -> RenderableType:
    if report is None:
        return Text("")
    findings = report.findings
    if not findings:
        return Text.assemble(("Findings  ", "bold"), ("nothing to fix", "green"))
    parts: list = [Text("Findings", style="bold")]
    for finding in findings:
        severity = finding.severity
        parts.append(
            Text.assemble((f"{severity.upper():7}", SEVERITY_STYLE.get(severity, "")), " ", (finding.code, "dim"))
        )
        # the message and its fix under the code, their wrapped lines keeping the indent (as `advisor check`)
        parts.append(Padding(Text(finding.message), (0, 0, 0, FINDING_INDENT)))
        if finding.fix:
            fix = Table.grid(padding=(0, 1))
            fix.add_column(no_wrap=True)
            fix.add_column()
            fix.add_row(Text("fix:", style="italic"), Text(finding.fix, style="italic"))
            parts.append(Padding(fix, (0, 0, 0, FINDING_INDENT)))
    return Group(*parts)
