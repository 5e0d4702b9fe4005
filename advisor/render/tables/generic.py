"""The table of a registered probe kind without a table of its own (probes.base.KINDS): its
Result as it is, whatever its shape. Its list of runs as a table (a column per scalar field that holds
a value in some run, status among them), else its scalar fields as name/value rows; then its verdicts,
its failed runs' errors and its warnings. Nested models, mappings and None are never assumed away:
a nested value is left out of the table, None is "-"."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel
from advisor.render.tables import grid

from advisor.numbers import sig
from advisor.render.interface import Renderer
from advisor.sanitize import one_line

FIRST = ("id", "name", "framework", "mode", "model", "status")  # a run's most telling fields, in this order
APART = ("warnings", "verdicts")  # a Result's lists shown as notes under the tables


class GenericTable(Renderer):
    """The Result of the probe kind `kind` (its registry line gives the title, its rate column and what
    one of its rows is)."""

    def __init__(self, kind: str, **options: Any) -> None:  # the text forms' options (width) do not apply
        self.kind = kind

    def format(self, result: Any) -> str:
        from probes.base import KINDS

        line = KINDS.get(self.kind)
        title = f"{line.label}: {line.summary}" if line else self.kind
        rate = line.rate[0] if line else ""
        rows_word = line.rows if line else "runs"
        runs = result_runs(result)
        blocks = [one_line(title)]
        if runs:
            names = run_columns(runs, rate)
            rows = [[cell(n, fields(r).get(n)) for n in names] for r in runs]
            table = grid(rows, names, tablefmt="simple", disable_numparse=True)
            blocks.append(f"{table}\n{len(runs)} {rows_word}")
        scalars = scalar_fields(result)
        if scalars:
            blocks.append(grid(scalars, ["field", "value"], tablefmt="simple", disable_numparse=True))
        elif not runs:
            blocks.append("(no figures in this result)")
        notes = [f"- {one_line(str(v))}" for v in listed(result, "verdicts")]
        notes += [f"x {one_line(name)}: {one_line(error)}" for name, error in run_errors(result)]
        notes += [f"! {one_line(str(w))}" for w in listed(result, "warnings")]
        if notes:
            blocks.append("\n".join(notes))
        return "\n\n".join(blocks) + "\n"


def fields(item: object) -> dict:
    """A model's or a mapping's fields, by name (nested values as they are); {} for anything else."""
    if isinstance(item, BaseModel):
        return dict(item)
    return dict(item) if isinstance(item, Mapping) else {}


def listed(result: object, name: str) -> list:
    value = fields(result).get(name)
    return list(value) if isinstance(value, (list, tuple)) else []


def result_runs(result: object) -> list:
    """The Result's list of runs (models or mappings), or [] where it has none."""
    runs = fields(result).get("runs")
    if isinstance(runs, (list, tuple)) and all(isinstance(r, (BaseModel, Mapping)) for r in runs):
        return list(runs)
    return []


def run_errors(result: object) -> list[tuple[str, str]]:
    """(run, error) of each run that did not end ok and says why."""
    out = []
    for run in result_runs(result):
        f = fields(run)
        if f.get("status") not in (None, "ok") and f.get("error"):
            out.append((str(f.get("id") or f.get("name") or "run"), str(f["error"])))
    return out


def scalar(value: object) -> bool:
    return isinstance(value, (str, int, float, bool))


def run_columns(runs: list, rate: str) -> list[str]:
    """The runs' scalar fields that hold a value in some run, most telling first: who (id, framework,
    mode, model), status, the kind's rate, the other numbers, the words, the error last."""
    names: dict[str, bool] = {}  # name -> holds a number somewhere
    for run in runs:
        for name, value in fields(run).items():
            if scalar(value):
                numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
                names[name] = names.get(name, False) or numeric
    if "status" not in names:
        names["status"] = False  # every run table says how each run ended ("?" where it does not say)

    def rank(name: str) -> tuple[int, int]:
        if name in FIRST:
            return 0, FIRST.index(name)
        return (1 if name == rate else 2 if names[name] else 4 if name == "error" else 3), 0

    return sorted(names, key=rank)


def cell(name: str, value: object) -> str:
    """One table cell: numbers short, words on one line and cut at 40 characters, None and nested "-"."""
    if name == "status":
        return value if isinstance(value, str) else "?"
    if value is None or not scalar(value):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}" if abs(value) >= 10 or value == 0 else sig(value)
    text = one_line(value)
    return text if len(text) <= 40 else text[:39] + "…"


def scalar_fields(result: object, apart: tuple[str, ...] = APART) -> list[tuple[str, str]]:
    """(name, value) of the Result's scalar fields and lists of scalars (nested models and None left out,
    and the fields `apart` that are shown elsewhere)."""
    out = []
    for name, value in fields(result).items():
        if name in apart or value is None:
            continue
        if isinstance(value, (list, tuple)) and value and all(scalar(v) for v in value):
            out.append((name, ", ".join(cell(name, v) for v in value)))
        elif scalar(value):
            out.append((name, cell(name, value)))
    return out
