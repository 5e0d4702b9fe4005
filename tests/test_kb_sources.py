"""knowledge/sources.py: a knowledge-base source a reader can follow. A path outside the package
(`shared/...`, `/...`, `../...`, `~/...`) is refused with the field and why; URLs, named documents,
field reports by file (cited by title), measurements in words and "assumption" pass."""

from __future__ import annotations

import pytest

import knowledge
from knowledge.sources import check, refused


@pytest.mark.parametrize(
    "source",
    [
        "shared/reference/facts.md",
        "shared/reference/facts.md (API differences)",
        "https://example.org/x; shared/reference/measured-here.md (NumPy)",
        "/work/shared/reference/facts.md",
        "../reference/facts.md",
        "~/notes.md",
    ],
)
def test_a_path_outside_the_package_is_refused(source):
    why = refused(source)
    assert why is not None and "path outside the package" in why


@pytest.mark.parametrize(
    "source",
    [
        "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix",
        "seeds/000_90cfaae2f15a68bc.txt (pitfall 1)",
        "assumption",
        "Gitee AI documentation (npu-smi samples)",
        "measured by framework-advisor on its 2-vCPU project machine (2026-12-01; Parity)",
        "https://a.example/x (a; b); seeds/002_1eb5f83b322b592f.txt (3.2)",
        None,
    ],
)
def test_a_source_a_reader_can_follow_passes(source):
    assert refused(source) is None


def test_the_files_this_change_owns_cite_originals_only():
    kb = knowledge.load()
    bad = [
        line for line in check(kb) if line.split(":", 1)[0] in ("api-mappings", "pitfalls", "ecosystem", "frameworks")
    ]
    assert bad == []


def test_check_names_section_entry_and_field_of_a_nested_source():
    kb = knowledge.load()
    entry = kb.pitfalls[0]
    broken = entry.model_copy(update={"source": "shared/reference/facts.md (x)"})
    kb2 = kb.model_copy(update={"pitfalls": [broken, *kb.pitfalls[1:]]})
    lines = check(kb2)
    assert f"pitfalls:{entry.id}: source: 'shared/reference/facts.md' is a path outside the package" in "\n".join(lines)


def test_refused_sources_name_section_entry_and_field():
    from knowledge.sources import refused_in

    kb = knowledge.load()
    entry = kb.ecosystem[0]
    kb2 = kb.model_copy(update={"ecosystem": [entry.model_copy(update={"source": "../notes.md"}), *kb.ecosystem[1:]]})
    found = [r for r in refused_in(kb2) if r[1] == entry.id]
    assert found and found[0][0] == "ecosystem" and found[0][2] == "source"
    assert "path outside the package" in found[0][3]


def test_kb_validate_refuses_a_user_entry_whose_source_is_a_shared_path(tmp_path):
    """validate() itself (what `advisor kb validate` prints) carries the source check."""
    from pathlib import Path

    import knowledge
    from knowledge.loader import validate

    costs = Path(knowledge.__file__).parent / "data" / "costs.yaml"
    pue = next(line for line in costs.read_text().splitlines() if "{id: pue," in line)
    (tmp_path / "mine.yaml").write_text(
        "costs:\n" + pue.replace('"assumption (data-centre PUE 1.2-1.5)"', '"shared/reference/facts.md"', 1) + "\n"
    )
    kb, found, _ = validate([tmp_path], use_env=False)
    assert kb is not None
    assert [(p.file, p.entry) for p in found if "shared/reference/facts.md" in p.message] == [("costs.yaml", "pue")]
