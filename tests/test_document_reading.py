"""What a reader reads, over every bundled example and report fixture (with the real 2-vCPU probe run):
numbers never in scientific notation, a first page of at most 350 words and a body of at most 2,500."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import pytest

from advisor.numbers import num, sig

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "examples").glob("*.yaml")) + sorted((ROOT / "tests/fixtures/report").glob("*.yaml"))
PROBES = ROOT / "tests" / "fixtures" / "report" / "probes-cpu.json"
SCIENTIFIC = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]\d+(?!\w)")  # 4.5e-08, 1.93e+04 (not a hex digest)
FIRST_PAGE_WORDS, BODY_WORDS = 350, 2500


@lru_cache(maxsize=None)
def rendered(path: Path) -> dict[str, str]:
    import knowledge
    from advisor.measurements import Measured, Measurements
    from advisor.render import format as render
    from advisor.report import build_report
    from advisor.requirements import load_requirements
    from probes.training.models import ProbeSuite

    kb = knowledge.load()
    probes = ProbeSuite.model_validate(json.loads(PROBES.read_text(encoding="utf-8")))
    report = build_report(
        load_requirements(path),
        Measurements(probes={"training": Measured(probes)}),
        kb=kb,
        created_at="2026-12-01T00:00:00Z",
    )
    return {fmt: render(report, fmt, kb=kb) for fmt in ("markdown", "html", "table", "json")}


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _prose_hits(text: str) -> list[str]:
    return [text[max(0, m.start() - 40) : m.end() + 10] for m in SCIENTIFIC.finditer(text)]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_no_number_a_reader_reads_is_in_scientific_notation(path):
    texts = rendered(path)
    hits = [h for fmt in ("markdown", "html", "table") for h in _prose_hits(_visible(texts[fmt], fmt))]
    # JSON numbers are for programs; its strings (notes, details, findings) are read by people
    hits += [h for s in _strings(json.loads(texts["json"])) for h in _prose_hits(s) if not _is_token(s)]
    assert not hits, hits[:5]


def _visible(text: str, fmt: str) -> str:
    """The HTML a browser shows: no embedded images (base64 data may hold "1e+0" by chance)."""
    if fmt != "html":
        return text
    return re.sub(r"data:[a-z/+]+;base64,[A-Za-z0-9+/=]+|<svg.*?</svg>|<script.*?</script>", "", text, flags=re.S)


def _is_token(s: str) -> bool:
    """A digest, an id or a data URI: not prose."""
    return " " not in s and len(s) > 24


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_first_page_and_body_stay_within_their_length(path):
    md = rendered(path)["markdown"]
    first = md.split("\n## Recommendation\n", 1)[1].split("\n## ", 1)[0]
    body = md.split("\n## Appendix ", 1)[0]
    assert len(first.split()) <= FIRST_PAGE_WORDS, f"{path.stem}: first page {len(first.split())} words"
    assert len(body.split()) <= BODY_WORDS, f"{path.stem}: body {len(body.split())} words"


@pytest.mark.parametrize(
    ("value", "figures", "text"),
    [
        (19_300.4, 3, "19,300"),  # 1.93e+04 in Python's g format
        (1_080.0, 3, "1,080"),
        (0.056, 2, "0.056"),
        (1.5, 3, "1.5"),
        (2_000_000.0, 6, "2,000,000"),
        (4.5e-8, 2, "4.5 × 10⁻⁸"),
        (9.996e-5, 3, "0.0001"),
    ],
)
def test_sig_keeps_g_figures_without_an_exponent(value, figures, text):
    assert sig(value, figures) == text


def test_num_prints_a_tiny_magnitude_rather_than_zero():
    assert num(4.5e-8) == "4.5 × 10⁻⁸"
    assert num(9.996e-5, 3) == "1 × 10⁻⁴"  # rounding carried into the next power of ten
    assert num(0.0123) == "0.012" and num(12_345.6) == "12,346"


LLM = ROOT / "tests" / "fixtures" / "report" / "llm-14b-cpt-910b.yaml"


def test_the_memory_columns_are_the_strategies_sized_alike_in_one_unit():
    """14B on 64 x 910B: the data-parallel, optimizer-sharded and split columns are the decision model's own
    three strategies (one formula, one micro-batch of activations), in GB of 10^9 bytes said once."""
    texts = rendered(LLM)
    fit = json.loads(texts["json"])["memory"][0]
    section = texts["markdown"].split("### Memory fit\n", 1)[1].split("\n#", 1)[0]
    header, _, row = [line for line in section.splitlines() if line.startswith("|")][:3]
    cells = dict(zip([c.strip() for c in header.split("|")], [c.strip() for c in row.split("|")]))
    sized = {s["strategy"]: s["per_device_gb"] for s in fit["strategies"]}
    assert cells["Data parallel GB/device"] == sig(sized["data-parallel"])
    assert cells["Optimizer sharded GB/device"] == sig(sized["optimizer-sharding"])
    assert cells["Split (fully sharded or model-parallel) GB/device"] == sig(sized["model-parallel"])
    assert "GB are 10^9 bytes in every column" in section
    assert f"micro-batch of {fit['layout']['micro_batch']} sequence(s)" in section
    assert all(h.endswith(("GB/device", "GB")) for h in cells if "GB" in h or "sharded" in h.lower())


def test_the_power_budget_says_the_arithmetic_it_uses_and_holds_the_energy_draw():
    """64 x 910B owned, no server datasheet: budget = 64 x 310-400 W x 1.8 (SERVER_POWER_PER_CARD_POWER, the
    share the energy uses) = 35.71-46.08 kW; the note prints those figures, and the fleet's draw while training
    (at most 85% of the maximum at 400 W) stays under the budget."""
    data = json.loads(rendered(LLM)["json"])
    cost = data["costs"][0]
    low, high = 64 * 310 * 1.8 / 1000, 64 * 400 * 1.8 / 1000
    assert cost["power_budget_kw_range"]["low"] == pytest.approx(low, abs=0.005)
    assert cost["power_budget_kw"] == pytest.approx(high, abs=0.005)
    note = next(n for n in cost["notes"] if n.startswith("power budget:"))
    assert f"{sig(round(low, 2), 6)}-{sig(round(high, 2), 6)} kW, provisioned at the high end" in note
    assert "x 1.8 for the server around it" in note and not note.startswith("power budget: cards x power")
    energy = next(p for p in data["projections"] if p["energy_kwh"])
    hours = energy["time_to_train_hours"]["high"]
    assert energy["energy_kwh"]["high"] == pytest.approx(high * 0.85 * hours, rel=1e-3)


def test_ratings_older_than_18_months_are_said_on_the_first_page_with_what_refreshes_them():
    """The ecosystem ratings the top two workflows' criteria cite are dated 2024-06; the report is of
    2026-12: the first page says how many and how old, the caveats appendix lists each with what would
    refresh it, and the JSON carries them."""
    texts = rendered(SCENARIOS[0])
    doc = json.loads(texts["json"])["document"]
    stale = doc["stale_ratings"]
    assert stale and all(r["as_of"] < "2025-06" for r in stale)
    first = texts["markdown"].split("\n## Recommendation\n", 1)[1].split("\n## ", 1)[0]
    assert f"{len(stale)} deciding rating(s) older than 18 months (as of {stale[0]['as_of'][:7]}" in first
    caveats = texts["markdown"].split("Data-quality caveats\n", 1)[1]
    for r in stale:
        assert f"`advisor kb show {r['id']}`) | {r['as_of'][:7]} | {r['refresh']} |" in caveats


def test_the_llm_document_says_what_a_reviewer_would_otherwise_object_to():
    """14B on 64 x 910B, owned, Hybrid n/a, vLLM-Ascend serving: two CANN lines are said to need separate
    environments; the owned fleet's device-hour figure is not a charge; the workflow that does not apply has no
    cost or schedule; the export rehearsal of a model served from its weights is no MindIR / ONNX export."""
    md = rendered(LLM)["markdown"]
    stack = md.split("## 1. The stack to install", 1)[1].split("\n## 2.", 1)[0]
    assert "CANN 9.0.0 here, 9.1.0 for training: one CANN per environment" in stack
    body = md.split("\n## Appendix ", 1)[0]
    assert "Compute at the device-hour price (owned: not charged)" in body
    assert "| Hybrid | n/a | n/a | n/a | n/a | n/a | n/a |" in body
    assert "**Failure allowance** (MindSpore):" in body and "MindSpore/Hybrid" not in body
    assert "the trained weights saved (HuggingFace format) and loaded by the serving runtime" in body
