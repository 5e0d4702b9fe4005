"""The requirements fields' descriptions come from the docstrings written under them, read by one
parse of the module (not pydantic's per-class source walk): the same text pydantic's own extraction
gives, on every field of every input model, and in the published JSON Schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic._internal._docs_extraction import extract_docstrings_from_cls

from advisor import requirements

ROOT = Path(__file__).resolve().parents[1]
MODELS = [m for m in vars(requirements).values() if isinstance(m, type) and issubclass(m, requirements._Input)]
MODELS = [m for m in MODELS if m is not requirements._Input]


def test_every_input_model_is_covered():
    assert {"Requirements", "Team", "Hardware", "Needs", "Workload"} <= {m.__name__ for m in MODELS}


@pytest.mark.parametrize("model", MODELS, ids=lambda m: m.__name__)
def test_each_field_carries_the_docstring_pydantic_would_read(model):
    expected = extract_docstrings_from_cls(model, use_inspect=True)
    for name, doc in expected.items():
        assert model.model_fields[name].description == doc, name


def test_the_published_schema_carries_them():
    schema = json.loads((ROOT / "advisor" / "schemas" / "requirements.schema.json").read_text())
    team = schema["$defs"]["Team"]["properties"]["size"]
    assert team["description"] == requirements.Team.model_fields["size"].description == "Engineers on the project."


def test_every_field_of_the_published_schema_says_what_it_is():
    """An editor's YAML support shows a field's description on hover: a field without one shows nothing
    (nine of ten model.* fields and every weight did before)."""
    schema = json.loads((ROOT / "advisor" / "schemas" / "requirements.schema.json").read_text())
    bare = [
        f"{owner}.{name}"
        for owner, props in [("Requirements", schema["properties"])]
        + [(n, d.get("properties", {})) for n, d in schema["$defs"].items()]
        for name, prop in props.items()
        if not prop.get("description")
    ]
    assert bare == []
