"""`advisor kb list|show|validate|stale|verify`: browse and check the knowledge base (bundled + user
overrides); `verify` runs the mapped MindSpore APIs live on this host (probes/kbverify)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from advisor.errors import UsageError
from advisor.output import check_output, emit, to_json

SECTION_NAMES = (
    "accelerators",
    "frameworks",
    "workflows",
    "ecosystem",
    "pitfalls",
    "api-mappings",
    "references",
    "derating",
    "costs",
    "prices",
    "interconnects",
    "scaling-curves",
)


def _section_names() -> tuple[str, ...]:
    """Every section the knowledge base registers (knowledge.models.SECTIONS is the one list)."""
    from knowledge.models import SECTIONS

    return tuple(SECTIONS)


def _date(text: str) -> Any:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date YYYY-MM-DD, got {text!r}") from None


def _months(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of months, got {text!r}") from None
    if not 0 <= value <= 600:
        raise argparse.ArgumentTypeError(f"expected 0-600 months, got {text!r}")
    return value


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "kb",
        help="browse and validate the knowledge base",
        description="Browse and validate the knowledge base: the bundled YAML files merged with your own "
        "(--kb DIR, or ADVISOR_KB_DIR with os.pathsep-separated directories) by id.",
    )
    parser.set_defaults(func=lambda args: _no_action(parser))
    sub = parser.add_subparsers(dest="kb_command", metavar="ACTION", parser_class=type(parser))

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--kb",
        action="append",
        default=[],
        metavar="DIR",
        help="directory of YAML files merged over the bundled ones by id (repeatable)",
    )
    common.add_argument("--json", action="store_true", help="print one JSON document")
    common.add_argument("-o", "--output", metavar="FILE", help="write the output to FILE (atomically)")

    today = argparse.ArgumentParser(add_help=False)
    today.add_argument(
        "--today",
        type=_date,
        metavar="YYYY-MM-DD",
        help="date to measure ages against (default: ADVISOR_TODAY or the system date)",
    )

    p_list = sub.add_parser("list", parents=[common], help="list entries (with the date each was last checked)")
    p_list.add_argument("section", nargs="?", metavar="SECTION", help=f"one of: {', '.join(SECTION_NAMES)}")
    p_list.set_defaults(func=_list)

    p_show = sub.add_parser("show", parents=[common], help="show one entry by id")
    p_show.add_argument("id", metavar="ID", help="entry id, or SECTION:ID when an id is in several sections")
    p_show.add_argument("--section", metavar="SECTION", help="look only in this section")
    p_show.set_defaults(func=_show)

    p_val = sub.add_parser(
        "validate",
        parents=[common, today],
        help="check files and list every problem (exit 0 valid, 1 problems); warn about old prices",
    )
    p_val.add_argument(
        "dir", nargs="?", metavar="DIR", help="a directory of override files to check with the bundled ones"
    )
    p_val.set_defaults(func=_validate)

    p_stale = sub.add_parser(
        "stale", parents=[common, today], help="list entries not checked for N months (default 12), or never checked"
    )
    p_stale.add_argument(
        "--months",
        type=_months,
        default=12,
        metavar="N",
        help="entries last checked more than N months ago (default 12)",
    )
    p_stale.add_argument("--section", metavar="SECTION", help="only this section")
    p_stale.set_defaults(func=_stale)

    p_verify = sub.add_parser(
        "verify",
        parents=[common],
        help="run every mapped MindSpore API once on tiny tensors here and compare with PyTorch (cached for the scan)",
    )
    p_verify.add_argument(
        "--subset", choices=["ci"], help="only the fixed CI subset (a few of each kind and the known failures)"
    )
    p_verify.add_argument(
        "--timeout", type=_timeout, default=300.0, metavar="S", help="seconds per worker (default 300)"
    )
    p_verify.set_defaults(func=_verify)


def _verify(args: argparse.Namespace) -> int:
    """Every mapped MindSpore API looked up in a MindSpore worker, those with a spec run once on tiny
    tensors and compared with the PyTorch call; the result is cached (the scan shows the failures)."""
    check_output(args.output)
    from probes.kbverify import runner, specs

    kb = _load(args)
    entries = [
        {"id": m.id, "pytorch": m.pytorch, "mindspore": m.mindspore, "mapping": m.mapping} for m in kb.api_mappings
    ]
    only = set(specs.CI_SUBSET) if args.subset == "ci" else None
    result = runner.verify(entries, only=only, timeout=args.timeout)
    if result.get("error"):
        import sys

        print(f"kb verify: {result['error']}", file=sys.stderr)
        return 1
    result["kb_version"] = str(kb.version)
    result["subset"] = args.subset or "all"
    path = runner.save(result)
    if args.json:
        emit(to_json(result), args.output)
        return 0
    counts = result["counts"]
    lines = [
        f"MindSpore {result['mindspore_version']} on {result['device']} (PyTorch {result['torch_version']}), "
        f"{len(result['results'])} APIs: " + ", ".join(f"{counts[k]} {k}" for k in VERIFY_ORDER if counts.get(k)),
        f"saved: {path} (the scan shows these beside its findings)",
    ]
    bad = [r for r in result["results"] if r["status"] in runner.FAILURES or r["status"] == "differs"]
    if bad:
        lines.append("")
        width = max(len(r["mindspore"]) for r in bad)
        for r in sorted(bad, key=lambda r: (VERIFY_ORDER.index(r["status"]), r["mindspore"])):
            lines.append(f"  {r['status']:<11} {r['mindspore']:<{width}}  {r.get('error', '')}")
    emit("\n".join(lines) + "\n", args.output)
    return 0


VERIFY_ORDER = ("verified", "runs", "differs", "exists", "missing", "failed", "not_inplace", "mismatch")


def _timeout(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not 1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 1-3600 seconds, got {text!r}")
    return value


def _no_action(parser: argparse.ArgumentParser) -> int:
    # Bad usage is one line on stderr (the help went to stdout, where scripts read results).
    raise UsageError(
        "kb: expected an action: list, show or validate, stale for what needs a look, or verify to run the "
        "mapped MindSpore APIs here (see `advisor kb --help`)"
    )


def _load(args: argparse.Namespace) -> Any:
    from advisor.commands.report import load_kb  # the one way a command reads the knowledge base

    return load_kb(list(args.kb or []))


def _entry_dict(section: str, entry: Any) -> dict:
    data = entry.model_dump(mode="json", exclude_none=True)
    return {"id": data.pop("id"), "section": section, **data}


def _checked(entry: Any) -> str:
    checked = getattr(entry, "last_checked", None)
    return f" [checked {checked}]" if checked else " [not checked]"


def _label(section: str, entry: Any) -> str:
    """A one-line description for the text listing, ending with the date it was last checked."""
    return _describe(section, entry) + _checked(entry)


def _describe(section: str, entry: Any) -> str:
    if section == "accelerators":
        fp16 = f", FP16 {entry.fp16_tflops.value:g} TFLOPS" if entry.fp16_tflops else ""
        mem = f", {entry.memory_gb.value:g} GB" if entry.memory_gb else ""
        role = "" if entry.training_capable else ", inference only"
        return f"{entry.name}{mem}{fp16}{role}"
    if section == "frameworks":
        return f"{entry.name} ({len(entry.versions)} versions)"
    if section == "workflows":
        return entry.name
    if section == "ecosystem":
        return f"{entry.framework} {entry.aspect} {entry.score}/5 (as of {entry.as_of})"
    if section == "pitfalls":
        return entry.title
    if section == "api-mappings":
        return f"{entry.pytorch} -> {entry.mindspore or '(none)'} [{entry.mapping}]"
    if section == "references":
        ips = entry.images_per_second.value
        return f"{entry.model}/{entry.dataset} {entry.devices}x {entry.accelerator} {entry.framework} {entry.mode} {entry.precision} bs{entry.batch_size}: {ips:g} img/s"
    if section == "derating":
        return f"{entry.factor}: {entry.loss.low:.0%}-{entry.loss.high:.0%} of peak lost"
    if section == "costs":
        usd = entry.usd
        value = f"{usd.low:g}-{usd.high:g}" if hasattr(usd, "low") else f"{usd.value:g}"
        target = f" {entry.accelerator}" if entry.accelerator else ""
        return f"{entry.kind}{target}: {value} ({entry.unit or 'USD'}, {usd.confidence}, as of {entry.as_of})"
    if section == "prices":
        where = f", {entry.region}" if entry.region else ""
        per = {"hour": "/h", "card": " per card", "server": f" per {entry.devices}-card server"}[entry.kind]
        return f"{entry.accelerator}: {entry.usd:g} USD{per} ({entry.provider}{where}, {entry.term}, observed {entry.observed})"
    if section == "interconnects":
        return f"{entry.name}: {entry.bandwidth_gbs.value:g} GB/s per device ({entry.scope})"
    return ""


def _check_section(command: str, section: str | None) -> None:
    names = _section_names()
    if section and section not in names:
        raise UsageError(f"kb {command}: unknown section {section!r}; expected one of {', '.join(names)}")


def _list(args: argparse.Namespace) -> int:
    check_output(args.output)
    _check_section("list", args.section)
    kb = _load(args)
    sections = [args.section] if args.section else list(_section_names())
    rows = [(s, e) for s in sections for e in kb.section(s)]
    if args.json:
        emit(to_json([_entry_dict(s, e) for s, e in rows]), args.output)
        return 0
    import shutil
    import textwrap

    total = max(60, min(shutil.get_terminal_size((100, 24)).columns, 160))  # 100 when piped or -o
    lines = [f"knowledge base {kb.version}: {len(rows)} entries"]
    for section in sections:
        entries = kb.section(section)
        if not entries:
            continue
        lines.append(f"\n[{section}]")
        width = max(len(e.id) for e in entries)  # per section: one long id no longer widens them all
        hang = width + 4 if width + 4 <= total - 30 else 6
        for entry in entries:
            lines.append(
                textwrap.fill(
                    _label(section, entry),
                    total,
                    initial_indent=f"  {entry.id:<{width}}  ",
                    subsequent_indent=" " * hang,
                    break_on_hyphens=False,
                )
            )
    emit("\n".join(lines) + "\n", args.output)
    return 0


def _show(args: argparse.Namespace) -> int:
    check_output(args.output)
    import yaml

    _check_section("show", args.section)
    kb = _load(args)
    wanted = args.id
    section = args.section
    if section is None and ":" in wanted and wanted.split(":", 1)[0] in _section_names():
        section, wanted = wanted.split(":", 1)
    matches = [(s, e) for s, e in kb.find(wanted) if section is None or s == section]
    if not matches:
        acc = kb.find_accelerator(wanted) if section in (None, "accelerators") else None
        if acc is None:
            where = f" in {section}" if section else ""  # h200 exists, just not in that section
            raise UsageError(
                f"kb show: no entry with id {wanted!r}{where} (try `advisor kb list{' ' + section if section else ''}`)"
            )
        matches = [("accelerators", acc)]
    if args.json:
        # One document: the entry; with an id in several sections, the first (others on stderr).
        doc = _entry_dict(*matches[0])
        emit(to_json(doc), args.output)
    else:
        parts = []
        for sec, entry in matches:
            body = yaml.safe_dump(_entry_dict(sec, entry), sort_keys=False, allow_unicode=True, width=100)
            parts.append(f"# {sec}: {entry.id}\n{body}")
        emit("\n".join(parts), args.output)
    if args.json and len(matches) > 1:
        import sys

        others = ", ".join(f"{s}:{e.id}" for s, e in matches[1:])
        print(f"advisor: note: {wanted!r} is also in {others} (use SECTION:ID)", file=sys.stderr)
    return 0


def _validate(args: argparse.Namespace) -> int:
    check_output(args.output)
    import knowledge
    from knowledge.loader import validate

    dirs = list(args.kb)
    if args.dir:
        if not Path(args.dir).is_dir():
            raise UsageError(f"kb validate: {args.dir}: not a directory")
        dirs.append(args.dir)
    try:
        from advisor.commands.report import home_relative_kb_dir
        from knowledge import budget
        from knowledge.loader import user_dirs

        budget.check(user_dirs(dirs))
        kb, problems, files = validate(dirs)
    except knowledge.KnowledgeError as exc:
        raise UsageError(str(exc)) from None
    except RuntimeError as exc:  # pathlib: ADVISOR_KB_DIR=~nosuchuser/kb
        raise UsageError(f"{home_relative_kb_dir()}: knowledge-base folder: {exc}") from None
    from knowledge.freshness import STALE_MONTHS, old_prices

    on = _today(args)
    # Old prices are warnings, not problems: the base still loads, the exit status stays 0.
    warnings = old_prices(kb, STALE_MONTHS, on) if kb is not None else []
    if args.json:
        doc = {
            "schema_version": 1,
            "valid": not problems,
            "version": kb.version if kb else None,
            "files": files,
            "problems": [p.as_dict() for p in problems],
            "warnings": warnings,
            "today": on.isoformat(),
        }
        emit(to_json(doc), args.output)
    elif problems:
        lines = [str(p) for p in problems]
        lines.append(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {len(files)} files")
        emit("\n".join(lines) + "\n", args.output)
    else:
        total = sum(len(kb.section(s)) for s in _section_names())
        lines = [f"warning: {w}" for w in warnings]
        lines.append(
            f"knowledge base valid: version {kb.version}, {total} entries from {len(files)} files"
            + (f"; {len(warnings)} price warning{'s' if len(warnings) != 1 else ''}" if warnings else "")
        )
        emit("\n".join(lines) + "\n", args.output)
    return 1 if problems else 0


def _today(args: argparse.Namespace) -> Any:
    from knowledge.freshness import today

    if getattr(args, "today", None):
        return args.today
    try:
        return today()
    except ValueError as exc:  # a malformed ADVISOR_TODAY
        raise UsageError(str(exc)) from None


def _stale(args: argparse.Namespace) -> int:
    check_output(args.output)
    _check_section("stale", args.section)
    from knowledge.freshness import stale_entries

    kb = _load(args)
    on = _today(args)
    found = stale_entries(kb, args.months, on, [args.section] if args.section else None)
    if args.json:
        emit(
            to_json(
                {
                    "schema_version": 1,
                    "today": on.isoformat(),
                    "months": args.months,
                    "entries": [s.as_dict() for s in found],
                }
            ),
            args.output,
        )
        return 0
    never = sum(1 for s in found if s.last_checked is None)
    lines = [s.describe() for s in found]
    lines.append(
        f"{len(found)} entr{'ies' if len(found) != 1 else 'y'} need a look "
        f"({len(found) - never} last checked more than {args.months:g} months before {on}, {never} never checked)"
    )
    emit("\n".join(lines) + "\n", args.output)
    return 0
