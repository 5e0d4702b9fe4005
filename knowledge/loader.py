"""Reading, merging and validating the YAML files into one `KnowledgeBase`.

Layers: the bundled files (knowledge/data, read through importlib.resources), then each user
directory in order (ADVISOR_KB_DIR first, then --kb). A later layer's entry with an id that already
exists in that section is merged over it field by field (so a user can override only `usd`); a new id
is appended. Every problem is collected as a `Problem` naming file, entry and field, so
`advisor kb validate` can list them all; `load()` raises the first one as a `KnowledgeError`.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Sequence, Union

from pydantic import ValidationError

from probes.bounded import Refused, read_regular

from knowledge import parse_cache
from knowledge.errors import KnowledgeError
from knowledge.models import SCAN_KINDS, SECTIONS, KnowledgeBase, PriceObservation
from knowledge.budget import check as check_budget
from knowledge.pricing import hourly_cost_entries

ENV_VAR = "ADVISOR_KB_DIR"
BUNDLED_LABEL = "knowledge/data"


def _clip(text: str, limit: int = 120) -> str:
    """An id or field as an error line names it: a 10,000-character id is not printed whole (twice)."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Problem:
    file: str
    entry: str
    field: str
    message: str

    def __str__(self) -> str:
        # File-level problems (bad YAML, unknown section) have no entry or field: '-' is not shown.
        where = "".join(
            f": {name} '{_clip(value)}'"
            for name, value in (("entry", self.entry), ("field", self.field))
            if value != "-"
        )
        return f"{self.file}{where}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "entry": self.entry, "field": self.field, "message": self.message}


@dataclass
class _Raw:
    """One entry being merged: its fields and which file set each field."""

    data: dict[str, Any]
    files: dict[str, str] = field(default_factory=dict)
    origin: str = ""

    def file_for(self, field_name: str) -> str:
        return self.files.get(field_name, self.origin)


# ---------------------------------------------------------------------------------------- files


def _bundled_files() -> list[tuple[str, bytes]]:
    folder = resources.files("knowledge").joinpath("data")
    out = []
    for item in sorted(folder.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".yaml", ".yml")) and item.is_file():
            out.append((f"{BUNDLED_LABEL}/{item.name}", item.read_bytes()))
    return out


# The bundled files are under 100 KB each; an override of several MB is a mistake, and parsing a
# 56 MB file took 41 s and 1.6 GB.
MAX_FILE_BYTES = 4 * 1024 * 1024


def _dir_files(folder: Path) -> list[tuple[str, bytes]]:
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix not in (".yaml", ".yml"):
            continue
        try:
            st = p.stat()
        except OSError as exc:  # a broken symlink, a permission problem
            raise KnowledgeError(
                f"{p}: cannot read ({exc.strerror or exc}): expected a knowledge-base YAML file"
            ) from None
        if not stat.S_ISREG(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                continue  # a folder named like a file is not a file of the base
            raise KnowledgeError(f"{p}: not a regular file: expected a knowledge-base YAML file")
        if st.st_size > MAX_FILE_BYTES:
            raise KnowledgeError(
                f"{p}: file is {st.st_size:,} bytes: expected a knowledge-base YAML file of at "
                f"most {MAX_FILE_BYTES:,} bytes"
            )
        try:
            # the one bounded reader: the file is checked again once open (it may have changed since the stat)
            out.append((str(p), read_regular(p, MAX_FILE_BYTES)))
        except Refused as exc:
            raise KnowledgeError(f"{p}: {exc}: expected a knowledge-base YAML file") from None
        except OSError as exc:
            raise KnowledgeError(f"{p}: cannot read ({exc.strerror or exc})") from None
    return out


def user_dirs(extra_dirs: Optional[Iterable[Union[str, os.PathLike]]] = None) -> list[Path]:
    """ADVISOR_KB_DIR entries (os.pathsep-separated) then the explicit ones, in merge order."""
    env = [d for d in os.environ.get(ENV_VAR, "").split(os.pathsep) if d.strip()]
    # os.path.expanduser leaves `~nosuchuser/...` as it is (Path.expanduser raises RuntimeError)
    return [Path(os.path.expanduser(d)) for d in [*env, *(extra_dirs or [])]]


def _check_dir(folder: Path) -> None:
    if not folder.is_dir():
        raise KnowledgeError(f"{folder}: knowledge-base directory does not exist (from --kb or {ENV_VAR})")


# ------------------------------------------------------------------------------------- parsing


# The bundled files hold ~40,000 values in all; a million bounds what aliases in an override may
# expand to. Entries nest a few levels (an entry, a sourced value, its alternatives).
KB_MAX_NODES = 1_000_000
KB_MAX_DEPTH = 32


def _entries_of(label: str, text: bytes, problems: list[Problem]) -> list[tuple[str, dict]]:
    """(section, raw entry) pairs of one file, parsed once per content (files are re-read, but an
    unchanged file is not re-parsed)."""
    entries, found = _parse(label, text)
    problems.extend(found)
    return list(entries)


@functools.lru_cache(maxsize=256)
def _parse(label: str, text: bytes) -> tuple[tuple[tuple[str, dict], ...], tuple[Problem, ...]]:
    # An earlier run's parse of the same bytes by the same code, when the user cache has it.
    kept = parse_cache.load(label, text)
    if kept is not None:
        entries, found = kept
        return tuple(entries), tuple(Problem(*p) for p in found)
    problems: list[Problem] = []
    entries = _parse_uncached(label, text, problems)
    parse_cache.store(label, text, entries, [(p.file, p.entry, p.field, p.message) for p in problems])
    return tuple(entries), tuple(problems)


def _parse_uncached(label: str, text: bytes, problems: list[Problem]) -> list[tuple[str, dict]]:
    """A file is a mapping `section: [entries]`, or a bare list of entries when the file is named
    after its section (e.g. costs.yaml)."""
    # The one strict loader of every YAML file the tool reads (advisor.safe_yaml: duplicate keys
    # refused, YAML 1.2 scalars, alias bombs and depth bounded); imported here, at parse time only.
    from advisor.errors import UsageError
    from advisor.safe_yaml import load_yaml

    try:
        doc = load_yaml(text.decode("utf-8"), label, max_nodes=KB_MAX_NODES, max_depth=KB_MAX_DEPTH)
    except UnicodeDecodeError:
        problems.append(Problem(label, "-", "-", "not valid YAML: not UTF-8 text"))
        return []
    except UsageError as exc:
        reason = str(exc).removeprefix(f"{label}: ").replace("invalid YAML: ", "", 1)
        problems.append(
            Problem(label, "-", "-", reason if reason.startswith("not valid YAML") else f"not valid YAML: {reason}")
        )
        return []
    if doc is None:
        return []
    stem = Path(label).stem
    if isinstance(doc, list):
        if stem not in SECTIONS:
            problems.append(
                Problem(
                    label,
                    "-",
                    "-",
                    f"a bare list needs the file named after its section "
                    f"({', '.join(SECTIONS)}); or use a mapping 'section: [entries]'",
                )
            )
            return []
        doc = {stem: doc}
    if not isinstance(doc, dict):
        problems.append(Problem(label, "-", "-", "expected a mapping of section names to lists of entries"))
        return []
    out = []
    for section, entries in doc.items():
        if section not in SECTIONS:
            problems.append(
                Problem(label, "-", str(section), f"unknown section; expected one of {', '.join(SECTIONS)}")
            )
            continue
        if not isinstance(entries, list):
            problems.append(Problem(label, "-", section, "expected a list of entries"))
            continue
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict):
                problems.append(Problem(label, f"#{index}", "-", f"{section} entry must be a mapping"))
            elif not isinstance(entry.get("id"), str) or not entry["id"].strip():
                problems.append(Problem(label, f"{section}#{index}", "id", "missing id"))
            else:
                found = _out_of_range(entry)
                if found:
                    problems.append(Problem(label, str(entry["id"]), found[0], found[1]))
                else:
                    out.append((section, entry))
    return out


def _out_of_range(entry: dict) -> Optional[tuple[str, str]]:
    """(field, what is expected) for the first number of `entry` outside the one range table
    (advisor.limits): `fp16_tflops: {value: .inf}` or `usable_memory_gb: 0` is bad input, not a
    score of Infinity or a division by zero."""
    from advisor.limits import problems as out_of_range

    for path, what in out_of_range(entry):
        return path, what
    return None


def _merge_layer(merged: dict[str, dict[str, _Raw]], layer: list[tuple[str, bytes]], problems: list[Problem]) -> None:
    """Merge one layer (bundled, or one user directory) into `merged`; same id twice within the
    layer is a duplicate, over an earlier layer it is an override."""
    seen: dict[tuple[str, str], str] = {}
    for label, text in layer:
        for section, entry in _entries_of(label, text, problems):
            key = (section, entry["id"])
            if key in seen:
                problems.append(Problem(label, entry["id"], "id", f"duplicate id in {section} (also in {seen[key]})"))
                continue
            seen[key] = label
            raw = merged[section].get(entry["id"])
            if raw is None:
                raw = merged[section][entry["id"]] = _Raw(data={}, origin=label)
            raw.data.update(entry)
            raw.files.update({name: label for name in entry})


def _field_message(err: dict) -> str:
    loc = err.get("loc", ())
    if err.get("type") == "missing":
        return "missing source" if loc and loc[-1] == "source" else "missing required field"
    if loc and loc[-1] == "source" and err.get("type") in ("string_too_short", "value_error"):
        return "missing source"
    if err.get("type") == "extra_forbidden":
        return "unknown field"
    msg = err.get("msg", "invalid")
    value = err.get("input")
    if isinstance(value, (str, int, float, bool)) and err.get("type") != "value_error":
        msg = f"bad value {value!r}: {msg}"
    return msg.replace("Value error, ", "")


def _loc_text(loc: Sequence[Any]) -> str:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif part in ("SourcedRange", "Sourced") or str(part).startswith(("function-", "union[")):
            continue  # pydantic's union branch labels are noise to a reader
        else:
            parts.append(("." if parts else "") + str(part))
    return "".join(parts) or "-"


# ---------------------------------------------------------------------------------- validation


# The ids an entry points at, one rule a row: (section, the field, its targets in the entry, the section
# the targets must exist in). A list field is checked element by element ("links[0]").
_POINTERS: tuple[tuple[str, str, Callable[[Any], list[str]], str], ...] = (
    ("pitfalls", "workflows", lambda p: p.workflows, "workflows"),
    ("pitfalls", "routes", lambda p: p.routes, "routes"),
    ("routes", "accelerators", lambda r: r.accelerators, "accelerators"),
    ("api-mappings", "pitfall", lambda m: [m.pitfall] if m.pitfall else [], "pitfalls"),
    ("references", "accelerator", lambda r: [r.accelerator], "accelerators"),
    ("mfu-references", "accelerator", lambda r: [r.accelerator], "accelerators"),
    ("records", "accelerator", lambda r: [r.accelerator], "accelerators"),
    ("serving-references", "accelerator", lambda r: [r.accelerator], "accelerators"),
    ("costs", "accelerator", lambda c: [c.accelerator] if c.accelerator else [], "accelerators"),
    ("prices", "accelerator", lambda p: [p.accelerator], "accelerators"),
    ("accelerators", "links", lambda a: a.links, "interconnects"),
    ("ecosystem", "framework", lambda e: [e.framework], "frameworks"),
)
_LIST_FIELDS = {"workflows", "routes", "accelerators", "links"}
_WANTED = {"workflows": "workflow", "routes": "route", "accelerators": "accelerator", "pitfalls": "pitfall",
           "interconnects": "interconnect", "frameworks": "framework"}  # fmt: skip


def _cross_references(kb_lists: dict[str, list], files: dict[tuple[str, str], _Raw]) -> list[Problem]:
    """Ids that entries point at must exist; names that identify one entry are unique; every scan hazard
    kind must be explained."""
    return _pointers(kb_lists, files) + _unique_names(kb_lists, files) + _scan_kinds_explained(kb_lists, files)


def _pointers(kb_lists: dict[str, list], files: dict[tuple[str, str], _Raw]) -> list[Problem]:
    problems: list[Problem] = []
    ids = {s: {e.id for e in kb_lists[SECTIONS[s][0]]} for s in SECTIONS}
    pitfall_kinds = {p.id: set(p.scan_kinds) for p in kb_lists["pitfalls"]}
    for section in dict.fromkeys(rule[0] for rule in _POINTERS):
        rules = [rule for rule in _POINTERS if rule[0] == section]
        for entry in kb_lists[SECTIONS[section][0]]:
            before = len(problems)
            for _, field_name, targets, target_section in rules:
                for i, target in enumerate(targets(entry)):
                    if target not in ids[target_section]:
                        where = f"{field_name}[{i}]" if field_name in _LIST_FIELDS else field_name
                        wanted = _WANTED[target_section]
                        message = f"broken cross-reference: no {wanted} with id {target!r}"
                        problems.append(
                            Problem(files[(section, entry.id)].file_for(field_name), entry.id, where, message)
                        )
            # an API mapping's scan_kind needs a pitfall that names it (unless its pitfall is missing)
            kind = getattr(entry, "scan_kind", None) if section == "api-mappings" else None
            if kind and len(problems) == before and (not entry.pitfall or kind not in pitfall_kinds[entry.pitfall]):
                message = f"scan_kind {kind!r} needs a pitfall whose scan_kinds name it"
                problems.append(
                    Problem(files[(section, entry.id)].file_for("scan_kind"), entry.id, "scan_kind", message)
                )
    return problems


def _unique_names(kb_lists: dict[str, list], files: dict[tuple[str, str], _Raw]) -> list[Problem]:
    problems: list[Problem] = []
    # Names that must identify one entry: smi names (device detection) and PyTorch API names (scan).
    # smi names are matched case-insensitively; Python names are case-sensitive (torch.Tensor is
    # not torch.tensor).
    for attr, section, names_of, what, fold in (
        ("accelerators", "accelerators", lambda a: a.smi_names, "smi_names", str.lower),
        ("api_mappings", "api-mappings", lambda m: [m.pytorch], "pytorch", str),
    ):
        owner: dict[str, str] = {}
        for entry in kb_lists[attr]:
            for name in names_of(entry):
                key = fold(name.strip())
                if key in owner and owner[key] != entry.id:
                    raw = files[(section, entry.id)]
                    problems.append(
                        Problem(raw.file_for(what), entry.id, what, f"duplicate name {name!r}: also in {owner[key]!r}")
                    )
                owner.setdefault(key, entry.id)
    return problems


def _scan_kinds_explained(kb_lists: dict[str, list], files: dict[tuple[str, str], _Raw]) -> list[Problem]:
    problems: list[Problem] = []
    if kb_lists["pitfalls"]:
        covered = {k for p in kb_lists["pitfalls"] if p.effort_hours for k in p.scan_kinds}
        for kind in SCAN_KINDS:
            if kind in covered:
                continue
            naming = [p for p in kb_lists["pitfalls"] if kind in p.scan_kinds]
            if naming:  # named, but without an effort figure (e.g. an override set it to null)
                raw = files[("pitfalls", naming[0].id)]
                problems.append(
                    Problem(
                        raw.file_for("effort_hours"),
                        naming[0].id,
                        "effort_hours",
                        f"explains scan hazard kind {kind!r} but has no effort_hours "
                        "(and no other pitfall for that kind has one)",
                    )
                )
            else:
                problems.append(
                    Problem(
                        f"{BUNDLED_LABEL}/pitfalls.yaml",
                        "-",
                        "scan_kinds",
                        f"no pitfall with effort_hours explains scan hazard kind {kind!r}",
                    )
                )
    return problems


PRICES_LABEL = f"{BUNDLED_LABEL}/prices.yaml (price policy)"


def _derive_hourly_costs(merged: dict[str, dict[str, _Raw]]) -> None:
    """One `<accelerator>-hour` cost per accelerator with hourly price observations (knowledge.pricing
    chooses the value). A costs entry with that id in any file is merged over the derived one field by
    field, so a team's own contract price still wins. Invalid observations are skipped here; the
    section's own validation reports them."""
    valid = []
    for raw in merged["prices"].values():
        try:
            valid.append(PriceObservation.model_validate(raw.data))
        except ValidationError:
            continue
    for entry_id, derived in hourly_cost_entries(valid, PRICES_LABEL).items():
        raw = merged["costs"].get(entry_id)
        if raw is None:
            merged["costs"][entry_id] = _Raw(data=derived, origin=PRICES_LABEL)
        else:  # an override of the derived entry: its fields win, the rest come from the prices
            raw.data = {**derived, **raw.data}
            raw.origin = PRICES_LABEL


def build(layers: list[list[tuple[str, bytes]]]) -> tuple[Optional[KnowledgeBase], list[Problem]]:
    """Merge and validate the layers; returns the knowledge base (None if any problem) and problems."""
    problems: list[Problem] = []
    merged: dict[str, dict[str, _Raw]] = {s: {} for s in SECTIONS}
    for layer in layers:
        _merge_layer(merged, layer, problems)
    _derive_hourly_costs(merged)

    lists: dict[str, list] = {attr: [] for attr, _ in SECTIONS.values()}
    raws: dict[tuple[str, str], _Raw] = {}
    for section, (attr, model) in SECTIONS.items():
        for entry_id, raw in merged[section].items():
            raws[(section, entry_id)] = raw
            try:
                lists[attr].append(model.model_validate(raw.data))
            except ValidationError as exc:
                for err in exc.errors():
                    loc = err.get("loc", ())
                    top = str(loc[0]) if loc else "-"
                    message = _field_message(err)
                    if err.get("type") == "missing" and len(loc) == 1 and not raw.origin.startswith(BUNDLED_LABEL):
                        message += (
                            f" (id {_clip(entry_id)!r} is new: there is no bundled {section} entry to merge over)"
                        )
                    problems.append(Problem(raw.file_for(top), entry_id, _loc_text(loc), message))
    problems.extend(_cross_references(lists, raws))

    digest = hashlib.sha256()
    for layer in layers:
        for label, text in layer:
            name = label if label.startswith(BUNDLED_LABEL) else Path(label).name
            digest.update(name.encode() + b"\0" + text + b"\0")
    if problems:
        return None, problems
    sources = [label for layer in layers for label, _ in layer]
    kb = KnowledgeBase(version=digest.hexdigest()[:16], sources=sources, **lists)
    return kb, problems


# ---------------------------------------------------------------------------------- public API

_CACHE: dict[tuple, KnowledgeBase] = {}


def _layers(dirs: list[Path], include_bundled: bool = True) -> list[list[tuple[str, bytes]]]:
    check_budget(dirs)  # the override folders together, from their listings, before any file is read
    layers = [_bundled_files()] if include_bundled else []
    for folder in dirs:
        _check_dir(folder)
        layers.append(_dir_files(folder))
    return layers


def validate(
    extra_dirs: Optional[Iterable[Union[str, os.PathLike]]] = None, *, use_env: bool = True
) -> tuple[Optional[KnowledgeBase], list[Problem], list[str]]:
    """(knowledge base or None, every problem, files read) for the bundled files merged with the
    user directories (ADVISOR_KB_DIR first unless use_env=False). Never cached."""
    dirs = user_dirs(extra_dirs) if use_env else [Path(d) for d in (extra_dirs or [])]
    layers = _layers(dirs)
    kb, problems = build(layers)
    if kb is not None:  # a source a reader cannot follow (a path outside the package) is a problem too
        from knowledge.sources import refused_in

        # as Problem records naming file, entry and field (the section's YAML file, the id, the dotted path)
        problems = [
            *problems,
            *(Problem(f"{sec}.yaml", entry, field, why) for sec, entry, field, why in refused_in(kb)),
        ]
    return kb, problems, [label for layer in layers for label, _ in layer]


def check(extra_dirs: Optional[Iterable[Union[str, os.PathLike]]] = None, *, use_env: bool = True) -> list[Problem]:
    """Every problem in the bundled files merged with the user directories (empty list = valid)."""
    return validate(extra_dirs, use_env=use_env)[1]


def _stamp(folder: Path) -> tuple:
    """What the cache key needs of a folder: its YAML files' names, times and sizes. A broken link
    is only a name here; reading the folder then reports it, with its reason."""

    def stamp(p: Path) -> tuple:
        try:
            st = p.stat()
        except OSError:
            return (p.name, None, None)
        return (p.name, st.st_mtime_ns, st.st_size)

    return tuple(stamp(p) for p in sorted(folder.iterdir()) if p.suffix in (".yaml", ".yml"))


def load(extra_dirs: Optional[Iterable[Union[str, os.PathLike]]] = None) -> KnowledgeBase:
    """The validated knowledge base: bundled files, then ADVISOR_KB_DIR, then `extra_dirs`, merged by
    id. Cached per set of files (their names, sizes and modification times)."""
    dirs = user_dirs(extra_dirs)
    for folder in dirs:
        _check_dir(folder)
    key = tuple((os.path.realpath(folder), _stamp(folder)) for folder in dirs)  # a loop of links: no RuntimeError
    if key in _CACHE:
        return _CACHE[key]
    kb, problems = build(_layers(dirs))
    if kb is None:
        rest = len(problems) - 1
        more = f" (and {rest} more problem{'s' if rest > 1 else ''}; run `advisor kb validate`)" if rest else ""
        raise KnowledgeError(f"{problems[0]}{more}", problems)
    _CACHE[key] = kb
    return kb


def clear_cache() -> None:
    _CACHE.clear()
