"""The committed JSON Schemas, generated from the pydantic models.

`SCHEMAS` is the registry: (model as "module:Class", file name in this folder). To add a document,
add one line. `python -m advisor.schemas` (`make schemas`) rewrites every file; the drift test
compares `generate()` with the committed files.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path

FOLDER = Path(__file__).resolve().parent

SCHEMAS: list[tuple[str, str]] = [
    ("advisor.report:Report", "report.schema.json"),
    ("advisor.requirements:Requirements", "requirements.schema.json"),
    ("probes.training.models:ProbeSuite", "probe.schema.json"),
    ("probes.check.models:CheckReport", "check.schema.json"),
    ("advisor.scan.models:ScanResult", "scan.schema.json"),
    ("probes.scaling.models:ScalingResult", "scaling.schema.json"),
    ("probes.transformer.models:GptResult", "gpt.schema.json"),
]


def _model(spec: str) -> type:
    module, name = spec.split(":")
    return getattr(importlib.import_module(module), name)


def schema_text(spec: str) -> str:
    """The schema of one model as the text committed to disk (stable key order, trailing newline)."""
    schema = _model(spec).model_json_schema(mode="serialization")
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def generate() -> dict[str, str]:
    """File name -> schema text for every registered model."""
    return {filename: schema_text(spec) for spec, filename in SCHEMAS}


def stale() -> list[str]:
    """File names whose committed text differs from what the models generate now."""
    out = []
    for filename, text in generate().items():
        path = FOLDER / filename
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            out.append(filename)
    return out


def write_all() -> list[Path]:
    written = []
    for filename, text in generate().items():
        path = FOLDER / filename
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written
