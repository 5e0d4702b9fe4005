"""The committed JSON Schemas match the models (regenerate with `make schemas`)."""

from __future__ import annotations

import json

from advisor import schemas


def test_committed_schemas_match_the_models():
    stale = schemas.stale()
    assert not stale, f"JSON Schema files out of date: {', '.join(stale)}; run `make schemas` and commit them"


def test_registry_is_extensible_and_every_file_is_a_schema():
    files = dict((name, spec) for spec, name in schemas.SCHEMAS)
    assert {"report.schema.json", "requirements.schema.json"} <= set(files)
    for name in files:
        doc = json.loads((schemas.FOLDER / name).read_text(encoding="utf-8"))
        assert doc["$schema"].startswith("https://json-schema.org/") and doc["type"] == "object"
    report = json.loads((schemas.FOLDER / "report.schema.json").read_text(encoding="utf-8"))
    for key in (
        "schema_version",
        "tool",
        "created_at",
        "knowledge_base",
        "requirements",
        "host",
        "probes",
        "recommendation",
        "scores",
        "projections",
        "pitfalls",
        "sensitivity",
        "assumptions",
    ):
        assert key in report["properties"], key
