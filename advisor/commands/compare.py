"""`advisor compare OLD.json NEW.json`: what changed between two reports (`advisor report --json`).

The verdict first (workflow, confidence, margin), then the changes grouped: the verdict, the scores, the
evidence they rest on (requirements, measurements, knowledge base), then the rest, each keyed by a stable path:
lists are matched by their workflow / name / id, not by position, so a reordered list is not a change.
Prose (notes, evidence text, pitfall descriptions) and the timestamp are left out.
"""

from __future__ import annotations

import argparse
import re

from advisor.errors import UsageError
from advisor.render.tables.compare import GROUPS, group_of
from advisor.output import read_json

SKIP_KEYS = {
    "created_at",
    "host",
    "evidence",
    "detail",
    "note",
    "notes",
    "summary",
    "reasons",
    "symptom",
    "cause",
    "fix",
    "basis_detail",
    "statement",
    "because",
    "title",
    "sources",
    "source",
}
LIST_KEYS = ("workflow", "criterion", "name", "id", "model")
_CRITERION_WEIGHT = re.compile(r"^scores\[[^]]+\]\.criteria\[[^]]+\]\.weight$")
SECTION_ORDER = (
    "recommendation",
    "knowledge_base",
    "requirements",
    "weights",
    "scores",
    "projections",
    "probes",
    "pitfalls",
    "sensitivity",
    "assumptions",
)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare", help="show what changed between two JSON reports", description=__doc__)
    parser.add_argument("old", metavar="OLD.json")
    parser.add_argument("new", metavar="NEW.json")
    parser.add_argument("--json", action="store_true", help="one JSON document listing the changes")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically)")
    parser.set_defaults(func=run)


def load_report(path: str) -> dict:
    data = read_json(path, "expected a JSON report from `advisor report --json`")
    if not isinstance(data, dict):
        raise UsageError(f"{path}: (top level): expected a report object")
    for key in ("schema_version", "recommendation", "scores"):
        if key not in data:
            raise UsageError(
                f"{path}: {key}: required field is missing: expected a report from `advisor report --json`"
            )
    from advisor.report import SCHEMA_VERSION

    version = data["schema_version"]
    if not isinstance(version, str) or version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise UsageError(
            f"{path}: schema_version: {str(version)[:20]!r} is not a report version this tool reads: "
            f"expected {SCHEMA_VERSION.split('.')[0]}.x (from `advisor report --json`)"
        )
    # The verdict line reads these directly: a hand-edited or foreign document must fail as bad input.
    if not isinstance(data["recommendation"], dict) or not isinstance(data["recommendation"].get("workflow"), str):
        raise UsageError(
            f"{path}: recommendation: expected an object with a 'workflow' string: "
            "expected a report from `advisor report --json`"
        )
    if not isinstance(data["scores"], list):
        raise UsageError(
            f"{path}: scores: expected a list of workflow scores: expected a report from `advisor report --json`"
        )
    return data


def _key(item: object) -> str | None:
    if isinstance(item, dict):
        for k in LIST_KEYS:
            if isinstance(item.get(k), (str, int)):
                return str(item[k])
    return None


def flatten(node: object, prefix: str = "") -> dict[str, object]:
    """Dotted path -> leaf value; lists of records keyed by their identity, other lists kept whole."""
    out: dict[str, object] = {}
    if isinstance(node, dict):
        for k, v in node.items():
            if k in SKIP_KEYS:
                continue
            out.update(flatten(v, f"{prefix}.{k}" if prefix else k))
    elif isinstance(node, list) and node and all(_key(x) is not None for x in node):
        for item in node:
            out.update(flatten(item, f"{prefix}[{_key(item)}]"))
    else:
        out[prefix] = node
    return out


def _close(a: object, b: object) -> bool:
    if (
        isinstance(a, (int, float))
        and isinstance(b, (int, float))
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))
    return a == b


def diff(old: dict, new: dict) -> list[dict]:
    a, b = flatten(old), flatten(new)
    changes = []
    for path in sorted(set(a) | set(b), key=lambda p: (GROUPS.index(group_of(p)), _section_rank(p), p)):
        if _CRITERION_WEIGHT.match(path):
            continue  # the same number as weights[name].weight, once per workflow
        if path in a and path in b and _close(a[path], b[path]):
            continue
        changes.append(
            {
                "path": path,
                "old": a.get(path),
                "new": b.get(path),
                "change": "added" if path not in a else ("removed" if path not in b else "changed"),
                "group": group_of(path),
            }
        )
    return changes


def _section_rank(path: str) -> int:
    head = path.split(".")[0].split("[")[0]
    return SECTION_ORDER.index(head) if head in SECTION_ORDER else len(SECTION_ORDER)


def run(args: argparse.Namespace) -> int:
    from advisor.output import check_output, emit, to_json

    check_output(args.output, [args.old, args.new])  # -o naming OLD or NEW would replace a report read
    old, new = load_report(args.old), load_report(args.new)
    changes = diff(old, new)
    if args.json:
        doc = {
            "schema_version": "1.0",
            "old": {"file": args.old, "created_at": old.get("created_at")},
            "new": {"file": args.new, "created_at": new.get("created_at")},
            "recommendation_changed": old["recommendation"].get("workflow") != new["recommendation"].get("workflow"),
            "changes": changes,
        }
        emit(to_json(doc), args.output)
    else:
        from advisor.render import renderer

        comparison = {"old_path": args.old, "new_path": args.new, "old": old, "new": new, "changes": changes}
        emit(renderer("compare").format(comparison), args.output)
    return 0
