"""The bundled knowledge base: every file validates, ids are unique, references resolve, every number
is sourced, and the content the issue asks for is there."""

from __future__ import annotations

import functools
import re
from importlib import resources

import pytest
import yaml

import knowledge
from knowledge.loader import build, _bundled_files
from knowledge.models import SCAN_KINDS, SECTIONS


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


@functools.lru_cache(maxsize=1)
def _raw_files():
    folder = resources.files("knowledge").joinpath("data")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return {
        p.name: yaml.load(p.read_text(encoding="utf-8"), Loader=loader)
        for p in folder.iterdir()
        if p.name.endswith(".yaml")
    }


def test_one_file_per_section_and_each_validates_alone():
    raw = _raw_files()
    assert sorted(raw) == sorted(f"{s}.yaml" for s in SECTIONS)
    for name, doc in raw.items():
        section = name[:-5]
        assert list(doc) == [section], f"{name} must hold exactly its own section"
        _, model = SECTIONS[section]
        for entry in doc[section]:
            model.model_validate(entry)  # raises with the field on a bad entry


def test_bundled_files_have_no_problems():
    kb, problems = build([_bundled_files()])
    assert problems == []
    assert kb is not None and re.fullmatch(r"[0-9a-f]{16}", kb.version)


def test_ids_unique_within_each_section():
    for name, doc in _raw_files().items():
        ids = [e["id"] for e in doc[name[:-5]]]
        assert len(ids) == len(set(ids)), f"duplicate ids in {name}"


def test_cross_references_resolve(kb):
    accelerators = {a.id for a in kb.accelerators}
    pitfalls = {p.id for p in kb.pitfalls}
    workflows = {w.id for w in kb.workflows}
    frameworks = {f.id for f in kb.frameworks}
    assert workflows == {"pytorch", "mindspore", "hybrid"}
    assert frameworks == {"pytorch", "mindspore", "torch_npu"}
    assert all(set(p.workflows) <= workflows for p in kb.pitfalls)
    assert all(m.pitfall in pitfalls for m in kb.api_mappings if m.pitfall)
    assert all(r.accelerator in accelerators for r in kb.references)
    assert all(c.accelerator in accelerators for c in kb.costs if c.accelerator)
    assert all(e.framework in frameworks for e in kb.ecosystem)


def _numbers(obj, path=""):
    """Yield (path, value, owner) for every number under a dumped entry; owner = the nearest dict."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                yield f"{path}.{key}", obj
            else:
                yield from _numbers(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, item in enumerate(obj):
            yield from _numbers(item, f"{path}[{i}]")


# Plain integers that describe an entry rather than measure something (the entry's own source covers them).
DESCRIPTIVE = {"year", "devices", "batch_size", "score"}


def test_every_number_has_a_source_and_confidence(kb):
    for section in SECTIONS:
        for entry in kb.section(section):
            dumped = entry.model_dump(mode="json")
            assert dumped.get("source") or section == "derating", f"{section}/{entry.id} has no source"
            for path, owner in _numbers(dumped):
                if path.rsplit(".", 1)[-1] in DESCRIPTIVE:
                    continue
                assert owner.get("source", "").strip(), f"{section}/{entry.id}{path} has no source"
                assert owner.get("confidence") in ("vendor", "secondary", "blog", "derived", "assumption")


def test_minimum_content(kb):
    assert len(kb.pitfalls) >= 15
    assert len(kb.api_mappings) >= 30
    assert {m.mapping for m in kb.api_mappings} == {"same", "differs", "none"}
    assert len(kb.references) >= 8 and len(kb.derating) == 3
    kinds = {c.kind for c in kb.costs}
    assert kinds == {"accelerator_hour", "electricity_kwh", "pue", "engineer_day"}
    aspects = {(e.framework, e.aspect) for e in kb.ecosystem}
    for fw in ("pytorch", "mindspore"):
        for aspect in ("model_hub", "libraries", "community", "debugging", "documentation"):
            assert (fw, aspect) in aspects


def test_every_scan_kind_explained_by_a_pitfall_with_effort(kb):
    for kind in SCAN_KINDS:
        explaining = [p for p in kb.pitfalls if kind in p.scan_kinds and p.effort_hours is not None]
        assert explaining, kind


def test_seed_hours_are_recorded(kb):
    hours = {p.id: p.hours.value for p in kb.pitfalls if p.hours}
    assert hours["normalize-range"] == 1.5
    assert hours["graph-dynamic-control-flow"] == 2
    assert hours["lr-scheduler-api"] == 0.5
    assert hours["cifar-binary-format"] == 0.75
    assert hours["mixed-precision-config"] == 1
    assert all("field report" in p.hours.source for p in kb.pitfalls if p.hours)


def test_conflicting_sources_keep_both_values(kb):
    fp16 = kb.get("ascend-910b").fp16_tflops
    assert fp16.value == 280 and 320 in [a.value for a in fp16.alternatives]
    assert all(fp16.source != a.source for a in fp16.alternatives)
    memory = kb.get("ascend-910c").memory_gb
    assert {memory.value, *(a.value for a in memory.alternatives)} == {128, 96}


def test_api_mappings_cover_what_the_scan_needs(kb):
    names = {m.pytorch for m in kb.api_mappings}
    for name in (
        "torch.nn.Conv2d",
        "torch.optim.SGD",
        "torch.optim.lr_scheduler.StepLR",
        "torch.utils.data.DataLoader",
        "torchvision.transforms.Normalize",
        "torch.cuda.amp.autocast",
        "torch.nn.parallel.DistributedDataParallel",
        "torch.Tensor.register_hook",
        "torch.utils.cpp_extension.load_inline",
    ):
        assert name in names
    assert kb.api_mapping("torch.utils.cpp_extension.load_inline").mapping == "none"
    for m in kb.api_mappings:
        assert (m.mindspore is None) == (m.mapping == "none"), m.id
        if m.scan_kind:
            assert m.pitfall and m.scan_kind in kb.get(m.pitfall, "pitfalls").scan_kinds, m.id


def test_compatibility_matrix_facts(kb):
    ms = {v.version: v for v in kb.get("mindspore", "frameworks").versions}
    assert "gpu" in ms["2.2.x"].devices
    later = [v for k, v in ms.items() if k[0] == "2" and k.split(".")[1].isdigit() and int(k.split(".")[1]) >= 3]
    assert later and all("gpu" not in v.devices for v in later)
    assert all(v.numpy and "<2" in v.numpy for v in ms.values())
    assert ms["2.4.0"].python == ["3.9", "3.10", "3.11"] and ms["2.3.0"].cann == ["8.0.RC2"]
    npu = {v.version: v for v in kb.get("torch_npu", "frameworks").versions}
    assert npu["2.12.0"].torch == "2.12.0" and npu["2.12.0"].cann == ["9.1.0"]
    assert npu["2.9.0"].cann == ["8.5.0"] and npu["2.5.1"].cann == ["8.1.RC1"]
    # every row with a checked Python range pairs a CANN line (a release on the index without a pairing
    # row is listed with an empty range, not pinned)
    assert all(v.torch and v.cann for v in npu.values() if v.python)


def test_pitfall_conditions_name_real_requirement_fields(kb):
    from advisor.requirements import Requirements

    def field_exists(path):
        model = Requirements
        for part in path.split("."):
            fields = getattr(model, "model_fields", {})
            if part not in fields:
                return False
            annotation = fields[part].annotation
            args = getattr(annotation, "__args__", ())
            model = next((a for a in (annotation, *args) if hasattr(a, "model_fields")), None)
        return True

    from knowledge.conditions import parse_condition

    for p in kb.pitfalls:
        for cond in p.applies_when:
            assert field_exists(parse_condition(cond).path), f"{p.id}: {cond}"


def test_references_convert_step_times_consistently(kb):
    ref = kb.get("mz-rn50-ascend910-8x-imagenet")
    assert ref.images_per_second.confidence == "derived"
    assert ref.images_per_second_per_device == pytest.approx(2170, rel=0.01)
    assert kb.get("dle-rn50-a100-80gb-8x-amp").images_per_second.value == 16621


def test_derating_matches_the_seed_table(kb):
    ranges = {d.factor: (d.loss.low, d.loss.high) for d in kb.derating}
    assert ranges == {
        "operator_coverage": (0.10, 0.30),
        "memory_bandwidth": (0.10, 0.40),
        "communication": (0.15, 0.50),
    }


def test_get_handles_ids_in_two_sections(kb):
    assert kb.get("pytorch").__class__.__name__ == "Framework"
    assert kb.get("workflows:pytorch").__class__.__name__ == "Workflow"
    assert kb.get("pytorch", "workflows").__class__.__name__ == "Workflow"
    assert kb.get("no-such-id") is None
    assert [s for s, _ in kb.find("hybrid")] == ["workflows"]


def test_load_is_cached(kb):
    assert knowledge.load() is kb
