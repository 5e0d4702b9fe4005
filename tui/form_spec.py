"""Turn a pydantic model class into a flat list of form fields (pure: no Textual).

The Requirements form is generated from the Requirements model itself, so every field of the file
gets a control and a field added to the model appears in the form without a change here:
Literal -> select, list of Literal -> multi-select, bool -> switch, int/float -> number input with
its bounds, str -> text input (a `*_path` field -> path input), nested model -> section.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo


@dataclass
class FieldSpec:
    path: tuple[str, ...]
    kind: str  # section | enum | multi | bool | int | float | text | path | mapping
    label: str
    description: str = ""
    choices: tuple = ()
    required: bool = True  # False: may be left empty (None)
    default: object = None
    bounds: dict = field(default_factory=dict)  # gt/ge/lt/le from the model's constraints
    depth: int = 0

    @property
    def key(self) -> str:
        return ".".join(self.path)

    @property
    def widget_id(self) -> str:
        return "f-" + "-".join(self.path).replace("_", "-")


def _strip_optional(tp: object) -> tuple[object, bool]:
    origin = typing.get_origin(tp)
    if origin in (Union, getattr(types, "UnionType", Union)):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
        return tp, type(None) in typing.get_args(tp)
    return tp, False


def _unwrap_annotated(tp: object) -> object:
    while typing.get_origin(tp) is typing.Annotated:
        tp = typing.get_args(tp)[0]
    return tp


def _is_model(tp: object) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _literal_values(tp: object) -> tuple | None:
    tp = _unwrap_annotated(tp)
    if typing.get_origin(tp) is Literal:
        return tuple(typing.get_args(tp))
    try:
        import enum

        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return tuple(m.value for m in tp)
    except TypeError:
        pass
    return None


def _bounds(info: FieldInfo) -> dict:
    out = {}
    for meta in getattr(info, "metadata", []) or []:
        for name in ("gt", "ge", "lt", "le"):
            value = getattr(meta, name, None)
            if value is not None:
                out[name] = value
    return out


def _label(name: str) -> str:
    return name.replace("_", " ")


def form_spec(model: type[BaseModel], prefix: tuple[str, ...] = (), depth: int = 0) -> list[FieldSpec]:
    """Every field of `model` (recursively), in declaration order."""
    specs: list[FieldSpec] = []
    for name, info in model.model_fields.items():
        path = prefix + (name,)
        tp, optional = _strip_optional(_unwrap_annotated(info.annotation))
        tp = _unwrap_annotated(tp)
        # a default_factory's value too (needs.domestic_scope defaults to both stages: an empty list
        # in the form would be a value the model refuses)
        default = info.get_default(call_default_factory=True) if info.default_factory else info.default
        default = None if default is PydanticUndefined else default
        # "required" here means "cannot be left empty": only Optional[...] fields may be None.
        required = not optional
        desc = (info.description or "").strip()  # the field's docstring (advisor.requirements sets it)
        common = dict(
            path=path, label=_label(name), description=desc, default=default, bounds=_bounds(info), depth=depth
        )
        if _is_model(tp):
            specs.append(FieldSpec(kind="section", required=required, **common))
            specs.extend(form_spec(tp, path, depth + 1))
            continue
        choices = _literal_values(tp)
        origin = typing.get_origin(tp)
        if choices is not None:
            specs.append(FieldSpec(kind="enum", choices=choices, required=not optional, **common))
        elif (
            origin in (list, tuple, set, frozenset)
            and typing.get_args(tp)
            and _literal_values(typing.get_args(tp)[0]) is not None
        ):
            specs.append(
                FieldSpec(kind="multi", choices=_literal_values(typing.get_args(tp)[0]), required=required, **common)
            )
        elif tp is bool:
            specs.append(FieldSpec(kind="bool", required=not optional, **common))
        elif tp is int:
            specs.append(FieldSpec(kind="int", required=required, **common))
        elif tp is float:
            specs.append(FieldSpec(kind="float", required=required, **common))
        elif origin is dict:
            specs.append(FieldSpec(kind="mapping", required=required, **common))
        else:
            kind = "path" if name.endswith("path") or name.endswith("_dir") else "text"
            specs.append(FieldSpec(kind=kind, required=required, **common))
    return specs


def get_path(data: dict, path: tuple[str, ...]) -> object:
    for part in path:
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def set_path(data: dict, path: tuple[str, ...], value: object) -> None:
    for part in path[:-1]:
        data = data.setdefault(part, {})
    data[path[-1]] = value


def parse_number(text: str, kind: str, bounds: dict) -> tuple[float | None, str | None]:
    """(value, error) for a number typed into the form; empty text gives (None, None)."""
    text = text.strip()
    if not text:
        return None, None
    try:
        value: float = int(text) if kind == "int" else float(text)
    except ValueError:
        return None, f"expected {'a whole number' if kind == 'int' else 'a number'}"
    checks = (
        ("gt", lambda v, b: v > b, "greater than"),
        ("ge", lambda v, b: v >= b, "at least"),
        ("lt", lambda v, b: v < b, "less than"),
        ("le", lambda v, b: v <= b, "at most"),
    )
    for name, ok, words in checks:
        if name in bounds and not ok(value, bounds[name]):
            return None, f"must be {words} {bounds[name]}"
    return value, None


def parse_mapping(text: str) -> tuple[dict | None, str | None]:
    """`performance: 0.3, cost: 0.2` -> {'performance': 0.3, 'cost': 0.2}."""
    text = text.strip()
    if not text:
        return None, None
    out = {}
    for part in text.split(","):
        if ":" not in part:
            return None, f"expected name: number pairs, got {part.strip()!r}"
        key, _, raw = part.partition(":")
        try:
            out[key.strip()] = float(raw)
        except ValueError:
            return None, f"{key.strip()}: expected a number"
    return out, None


def format_mapping(value: object) -> str:
    if not isinstance(value, dict):
        return ""
    return ", ".join(f"{k}: {v}" for k, v in value.items() if v is not None)
