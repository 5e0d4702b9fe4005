"""The software stack to install, pinned from the knowledge base's compatibility matrix
(knowledge/data/frameworks.yaml) for one framework path on one kind of hardware, with the commands
that verify it. The field report 'Ascend 910 and MindSpore in practice' §3.2 and §5.6: lock versions to the vendor matrix, not to "latest".

`stacks_for(report, kb)` gives the stacks of the recommended workflow: one for most workflows, two for
hybrid (the PyTorch prototype environment, then the MindSpore production environment). Pure: reads
the report and the knowledge base, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

from knowledge.models import Framework, FrameworkVersion, KnowledgeBase

if TYPE_CHECKING:  # advisor.report imports the decision model; the stack only reads the report
    from advisor.report import Report

_RANK = {"vendor": 0, "secondary": 1, "derived": 2, "blog": 3, "assumption": 4}


@dataclass
class Component:
    name: str
    version: str
    source: str = ""
    confidence: str = ""
    note: str = ""
    kb_id: str | None = None


@dataclass
class Stack:
    title: str
    path: str
    components: list[Component] = field(default_factory=list)
    install: list[str] = field(default_factory=list)
    verify: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def version_key(text: str) -> tuple:
    """'2.7.1.post2' > '2.7.1' > '2.6.0-rc1'; 'x' components sort low."""
    parts = re.findall(r"\d+|rc|post", str(text).lower())
    key: list[int] = []
    for p in parts:
        key.append(-1 if p == "rc" else (0 if p == "post" else int(p)))
    return tuple(key)


def _versions(kb: KnowledgeBase, fid: str) -> list[FrameworkVersion]:
    fw: Optional[Framework] = next((f for f in kb.frameworks if f.id == fid), None)
    return list(fw.versions) if fw is not None else []


def pick(kb: KnowledgeBase, fid: str, device: str, need_cann: bool = False) -> Optional[FrameworkVersion]:
    """The newest release listed for `device` with a known Python range (and CANN pairing when
    asked), preferring vendor-confirmed rows over secondary or derived ones."""
    rows = [v for v in _versions(kb, fid) if device in v.devices and v.python and (v.cann or not need_cann)]
    if not rows:
        return None
    best = min(_RANK.get(v.confidence, 9) for v in rows)
    return max((v for v in rows if _RANK.get(v.confidence, 9) == best), key=lambda v: version_key(v.version))


def _python(row: FrameworkVersion, prefer: Optional[str] = None) -> Component:
    versions = sorted(row.python, key=version_key)
    chosen = prefer if prefer in versions else versions[-1]
    why = (
        "the production environment's, so code and checkpoints move unchanged" if chosen == prefer else "newest chosen"
    )
    return Component(
        "Python",
        chosen,
        note=f"listed for this release: {', '.join(versions)} ({why})",
        source=row.source,
        confidence=row.confidence,
    )


def _pytorch_numpy(kb: KnowledgeBase, torch_version: str) -> Component:
    """NumPy for a PyTorch version: the nearest PyTorch row at or below it."""
    rows = [v for v in _versions(kb, "pytorch") if version_key(v.version) <= version_key(torch_version)]
    if not rows:
        return Component("NumPy", "not in the knowledge base", note=f"no PyTorch row at or below {torch_version}")
    row = max(rows, key=lambda v: version_key(v.version))
    return Component(
        "NumPy",
        row.numpy or "1.x or 2.x",
        source=row.source,
        confidence=row.confidence,
        kb_id="pytorch",
        note=f"from the PyTorch {row.version} row",  # its note is about CUDA lines, not NumPy
    )


def _ascend_driver(cann: str) -> Component:
    return Component(
        "Ascend driver + firmware (HDK)",
        f"the release paired with CANN {cann}",
        kb_id="version-matrix",
        note="not pinned in the knowledge base: take the HDK version from the CANN release notes; install "
        "driver and firmware first and check `npu-smi info` before anything else (the field report 'Ascend 910 and MindSpore in practice' §3.2)",
    )


ASCEND_VERIFY = [
    "npu-smi info    # every card listed, health OK, no driver/firmware mismatch",
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh    # CANN environment (put it in ~/.bashrc)",
]


def mindspore_stack(kb: KnowledgeBase, device: str, title: str) -> Stack:
    row = pick(kb, "mindspore", device, need_cann=device == "ascend")
    path = {"ascend": "mindspore", "gpu": "mindspore-gpu", "cpu": "mindspore-cpu"}[device]
    st = Stack(title, path)
    if row is None:
        st.notes.append(f"the knowledge base lists no MindSpore release for {device} with a known Python range")
        return st
    v = row.version
    st.components.append(Component("MindSpore", v, row.source, row.confidence, row.note or "", "mindspore"))
    cann = row.cann[0] if row.cann else None
    if device == "ascend" and cann:
        st.components.append(
            Component(
                "CANN toolkit",
                cann,
                row.source,
                row.confidence,
                "the CANN line the vendor pairs with this MindSpore release",
                "mindspore",
            )
        )
        st.components.append(_ascend_driver(cann))
    py = _python(row)
    py.kb_id = "mindspore"
    st.components.append(py)
    st.components.append(
        Component(
            "NumPy",
            row.numpy or "not stated",
            row.source,
            row.confidence,
            "NumPy 2 breaks MindSpore's PyNative mode (`advisor kb show numpy-2-breaks-mindspore`)",
            "mindspore",
        )
    )
    pin = f"mindspore=={v}" if not v.endswith(".x") else f"mindspore=={v[:-2]}.*"
    st.install = [
        f"conda create -n mindspore python={py.version} -y && conda activate mindspore",
        f'pip install "{pin}" "numpy{row.numpy or ""}"',
    ]
    st.verify = (ASCEND_VERIFY if device == "ascend" else ["nvidia-smi"] if device == "gpu" else []) + [
        'python -c "import mindspore; mindspore.run_check()"    # prints the version and runs one operator',
        'python -c "import numpy; print(numpy.__version__)"    # must be below 2',
        "advisor check    # host, drivers, frameworks and versions in one report",
    ]
    return st


def torch_npu_stack(kb: KnowledgeBase, title: str) -> Stack:
    st = Stack(title, "pytorch-npu")
    row = pick(kb, "torch_npu", "npu", need_cann=True)
    if row is None:
        st.notes.append("the knowledge base lists no torch_npu release with a CANN pairing and a Python range")
        return st
    tv, cann = row.torch or row.version, row.cann[0]
    src, conf = row.source, row.confidence
    st.components += [
        Component("PyTorch", tv, src, conf, "the PyTorch version this torch_npu release is built for", "torch_npu"),
        Component("torch_npu adapter", row.version, src, conf, row.note or "", "torch_npu"),
        Component("CANN toolkit", cann, src, conf, "the CANN line this torch_npu release pairs with", "torch_npu"),
        _ascend_driver(cann),
    ]
    py = _python(row)
    py.kb_id = "torch_npu"
    st.components += [py, _pytorch_numpy(kb, tv)]
    st.install = [
        f"conda create -n torch-npu python={py.version} -y && conda activate torch-npu",
        f'pip install "torch=={tv}" "torch-npu=={row.version}"',
    ]
    st.verify = ASCEND_VERIFY + [
        'python -c "import torch, torch_npu; print(torch.__version__, torch_npu.__version__, torch.npu.is_available(), '
        'torch.npu.device_count())"',
        "advisor check",
    ]
    return st


def pytorch_stack(kb: KnowledgeBase, device: str, title: str, python: Optional[str] = None) -> Stack:
    st = Stack(title, "pytorch-cuda" if device == "cuda" else "pytorch-cpu")
    row = pick(kb, "pytorch", device)
    if row is None:
        st.notes.append(f"the knowledge base lists no PyTorch release for {device} with a known Python range")
        return st
    v, src, conf = row.version, row.source, row.confidence
    st.components.append(Component("PyTorch", v, src, conf, row.note or "", "pytorch"))
    if device == "cuda":
        st.components.append(
            Component(
                "CUDA runtime",
                f"a CUDA line listed for PyTorch {v}",
                src,
                conf,
                "the wheel carries its CUDA runtime; the knowledge base does not pin the line: "
                "read it from the release compatibility matrix (source)",
                "pytorch",
            )
        )
        st.components.append(
            Component(
                "NVIDIA driver",
                "the minimum for that CUDA line or newer",
                note="not pinned in the knowledge base",
                kb_id="pytorch",
            )
        )
    py = _python(row, python)
    py.kb_id = "pytorch"
    st.components += [
        py,
        Component("NumPy", row.numpy or "1.x or 2.x", src, conf, "from the same row", "pytorch"),
    ]
    newer = [x for x in _versions(kb, "pytorch") if version_key(x.version) > version_key(v)]
    if newer:
        st.notes.append(
            "newer rows in the knowledge base lack a vendor-checked Python range: "
            + ", ".join(f"{x.version} ({x.confidence})" for x in newer)
        )
    st.install = [f"python{py.version} -m venv .venv && . .venv/bin/activate", f'pip install "torch=={v}.*"']
    st.verify = (["nvidia-smi    # driver loaded, every GPU listed"] if device == "cuda" else []) + [
        'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count())"',
        "advisor check",
    ]
    return st


def stack_for_path(kb: KnowledgeBase, path: str, title: str, python: Optional[str] = None) -> Optional[Stack]:
    if path == "mindspore":
        return mindspore_stack(kb, "ascend", title)
    if path == "mindspore-gpu":
        return mindspore_stack(kb, "gpu", title)
    if path == "mindspore-cpu":
        return mindspore_stack(kb, "cpu", title)
    if path == "pytorch-npu":
        return torch_npu_stack(kb, title)
    if path == "pytorch-cuda":
        return pytorch_stack(kb, "cuda", title, python)
    if path == "pytorch-cpu":
        return pytorch_stack(kb, "cpu", title, python)
    return None


def stacks_for(report: "Report", kb: Optional[KnowledgeBase]) -> list[Stack]:
    """The recommended workflow's stacks: the path its projection trains (or, for an inference-only
    product, serves) on; for hybrid, the PyTorch prototype environment on the prototyping hardware first."""
    if kb is None:
        return []
    wf = report.recommendation.workflow
    proj = next((p for p in report.projections if p.workflow == wf), None)
    if proj is None:
        return []
    where = proj.accelerator or proj.target
    name = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "MindSpore"}.get(wf, wf)
    work = report.requirements.workload
    stage = "Serving" if work is not None and work.kind == "inference" else "Training"
    stage = "Production" if wf == "hybrid" else stage
    main = stack_for_path(kb, proj.path, f"{stage}: {name} on {where} x{proj.devices} ({proj.path})")
    out = [main] if main is not None else []
    if wf == "hybrid":
        available = list(report.requirements.hardware.available)
        proto = "pytorch-cuda" if "nvidia" in available else "pytorch-cpu"
        python = next((c.version for c in (main.components if main else []) if c.name == "Python"), None)
        st = stack_for_path(
            kb, proto, f"Prototype: PyTorch on {'NVIDIA GPUs' if proto == 'pytorch-cuda' else 'CPU'}", python
        )
        numpy = next((c for c in (main.components if main else []) if c.name == "NumPy"), None)
        if st is not None and numpy is not None:
            # Checkpoint conversion and parity checks load both frameworks' outputs: one NumPy line.
            for c in st.components:
                if c.name == "NumPy":
                    c.version, c.note = numpy.version, "the production environment's (MindSpore needs NumPy below 2)"
                    c.source, c.confidence, c.kb_id = numpy.source, numpy.confidence, numpy.kb_id
            st.install = [
                line.replace('"torch==', f'"numpy{numpy.version}" "torch==') if "pip install" in line else line
                for line in st.install
            ]
        if st is not None:
            out.insert(0, st)
    return out
