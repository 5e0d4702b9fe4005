"""The corrections a hardware review asked for (the boards' own memory and peak figures), and the contract the decision model relies on (training_capable,
usable_memory_gb, interconnects), checked against the bundled data."""

from __future__ import annotations

import pytest

import knowledge


@pytest.fixture(scope="module")
def kb():
    return knowledge.load()


def acc(kb, acc_id):
    return kb.get(acc_id, "accelerators")


def test_v100_peaks_cite_the_datasheet(kb):
    v = acc(kb, "v100")
    assert (v.fp32_tflops.value, v.fp16_tflops.value) == (15.7, 125)
    assert "datasheet" in v.fp32_tflops.source and v.fp32_tflops.confidence == "vendor"
    assert [a.value for a in v.fp32_tflops.alternatives] == [15] and [a.value for a in v.fp16_tflops.alternatives] == [
        120
    ]
    assert "inside-volta" in v.fp16_tflops.alternatives[0].source


def test_910b_power_and_bandwidth_carry_alternatives(kb):
    b = acc(kb, "ascend-910b")
    assert b.tdp_w.value == 310 and {a.value for a in b.tdp_w.alternatives} >= {400}
    assert "310-400 W" in b.tdp_w.note
    assert b.bandwidth_gbs.note and "1.6 TB/s" in b.bandwidth_gbs.note


def test_910c_has_a_sourced_peak_and_a_price(kb):
    c = acc(kb, "ascend-910c")
    assert c.fp16_tflops.value == 752 and "2506.12708" in c.fp16_tflops.source
    assert {a.value for a in c.fp16_tflops.alternatives} == {780, 800}
    assert c.tdp_w.confidence == "assumption"
    assert kb.costs_for("accelerator_hour", "ascend-910c")


def test_torch_npu_rows(kb):
    rows = {v.version: v for v in kb.get("torch_npu", "frameworks").versions}
    for version in ("2.7.1.post2", "2.8.0.post2"):
        assert rows[version].python == ["3.9", "3.10", "3.11", "3.12"] and rows[version].cann == ["8.5.0"]
        assert rows[version].confidence == "vendor"
    assert rows["2.9.0"].python == ["3.10", "3.11", "3.12"] and rows["2.9.0"].cann == ["8.5.0"]
    assert rows["2.6.0.post5"].cann == ["8.5.0"] and rows["2.6.0.post5"].torch == "2.6.0"
    assert rows["2.12.0"].python and rows["2.12.0"].confidence == "vendor"


def test_mindspore_rows(kb):
    rows = {v.version: v for v in kb.get("mindspore", "frameworks").versions}
    assert "3.12" in rows["2.7.2"].python and "RELEASE" in rows["2.7.2"].source
    for version in ("2.5.0", "2.6.0"):  # no vendor table row: marked, with the reasoning in the note
        assert rows[version].confidence == "assumption" and rows[version].note


def test_no_compatibility_row_is_derived_or_secondary_without_saying_why(kb):
    for fw in kb.frameworks:
        for row in fw.versions:
            if row.confidence in ("derived", "secondary", "assumption"):
                assert row.note, f"{fw.id} {row.version}"


def test_torch_npu_gap_is_stated_the_right_way_round(kb):
    pitfall = kb.get("torch-npu-adapter-overhead", "pitfalls")
    assert "13-17% slower" in pitfall.symptom and "15-20% faster" in pitfall.symptom
    assert "13-17%" in " ".join(kb.get("torch_npu", "frameworks").features)
    assert "13-17%" in " ".join(kb.get("pytorch", "workflows").bad_for)
    # 1 - 1/1.15 and 1 - 1/1.20
    assert round((1 - 1 / 1.15) * 100) == 13 and round((1 - 1 / 1.20) * 100) == 17


def test_inference_parts_are_marked(kb):
    inference = {a.id for a in kb.accelerators if not a.training_capable}
    # the L4 is an inference and graphics card (Google Cloud recommends other series for training)
    assert inference == {"ascend-310", "ascend-310p", "atlas-300i-pro", "atlas-300i-duo", "ascend-310b", "l4"}
    for a in kb.accelerators:
        if a.id.startswith(("ascend-910", "v100", "a100", "h100", "h200", "b200", "b300", "rtx-")):
            assert a.training_capable, a.id


def test_usable_memory_is_below_the_total(kb):
    with_reserve = [a for a in kb.accelerators if a.usable_memory_gb]
    assert {a.id for a in with_reserve} >= {"ascend-910b", "ascend-910b4"}
    for a in with_reserve:
        assert a.usable_memory_gb.value < a.memory_gb.value
        assert "5.5" in a.usable_memory_gb.source  # the seed section that names the reserve


def test_coverage_the_issue_asks_for(kb):
    ids = {a.id for a in kb.accelerators}
    assert {
        "a800",
        "h800",
        "h20",
        "l20",
        "rtx-3090",
        "rtx-4090",
        "rtx-5090",
        "b200",
        "b300",
        "ascend-910c",
        "atlas-300i-pro",
        "ascend-310b",
        "v100-pcie-32gb",
        "v100s",
        "h100-pcie",
        "h100-nvl",
        "h200-nvl",
    } <= ids
    for a in kb.accelerators:
        if a.vendor == "generic":
            continue
        peaks = [a.fp16_tflops, a.bf16_tflops, a.fp32_tflops] if a.training_capable else [a.int8_tops]
        assert any(peaks), a.id
        assert a.tdp_w is not None, a.id
        assert a.framework_paths, a.id
        assert a.links or not a.training_capable, a.id


def test_interconnects_resolve_and_cover_the_families(kb):
    by_id = {i.id: i for i in kb.interconnects}
    for a in kb.accelerators:
        assert [i.id for i in kb.interconnects_for(a.id)] == a.links
    assert {
        "nvlink-2",
        "nvlink-3",
        "nvlink-4",
        "nvlink-5",
        "hccs-910b",
        "pcie-4-x16",
        "infiniband-ndr",
        "roce-200g",
    } <= set(by_id)
    assert by_id["nvlink-4"].bandwidth_gbs.value == 900 and by_id["nvlink-3-400"].bandwidth_gbs.value == 400
    assert {i.scope for i in kb.interconnects} == {"host-bus", "intra-node", "inter-node"}
    assert all(i.last_checked for i in kb.interconnects)


def test_broken_link_is_reported(tmp_path):
    (tmp_path / "a.yaml").write_text("accelerators:\n  - id: h100\n    links: [nvlink-9]\n")
    with pytest.raises(knowledge.KnowledgeError, match="no interconnect with id 'nvlink-9'"):
        knowledge.load([tmp_path])
