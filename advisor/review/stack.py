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

from advisor.decision.findings import said
from knowledge.models import Framework, FrameworkVersion, KnowledgeBase

if TYPE_CHECKING:  # the stack reads the report; it never imports advisor.report (which imports the review)
    from advisor.review.inputs import ReportView

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
    source: str = ""  # the route's table every component without a source of its own is pinned from
    confidence: str = ""
    install: list[str] = field(default_factory=list)
    verify: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pip: list[str] = field(default_factory=list)  # the requirements of its `pip install` line, if it has one


def _pip(st: Stack, *reqs: str) -> str:
    """The stack's `pip install` line, its requirements kept so a line can be rebuilt with one more."""
    st.pip = list(reqs)
    return said("stack.install.pip", reqs=reqs)


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
    why = said("stack.python.same_env") if chosen == prefer else said("stack.python.newest")
    return Component(
        "Python",
        chosen,
        note=said("stack.python.listed", versions=tuple(versions), why=why),
        source=row.source,
        confidence=row.confidence,
    )


def _pytorch_numpy(kb: KnowledgeBase, torch_version: str) -> Component:
    """NumPy for a PyTorch version: the nearest PyTorch row at or below it."""
    rows = [v for v in _versions(kb, "pytorch") if version_key(v.version) <= version_key(torch_version)]
    if not rows:
        return Component("NumPy", said("stack.numpy.no_row"), note=said("stack.numpy.no_row_note", torch=torch_version))
    row = max(rows, key=lambda v: version_key(v.version))
    return Component(
        "NumPy",
        row.numpy or said("stack.numpy.either"),
        source=row.source,
        confidence=row.confidence,
        kb_id="pytorch",
        note=said("stack.numpy.from_row", version=row.version),  # its note is about CUDA lines, not NumPy
    )


def _ascend_driver(cann: str) -> Component:
    return Component(
        said("stack.hdk.name"),
        said("stack.hdk.version", cann=cann),
        kb_id="version-matrix",
        note=said("stack.hdk.note"),
    )


def ascend_verify() -> list[str]:
    """The Ascend host's checks, worded when asked (a catalogue chosen after import reaches them)."""
    return [said("stack.verify.npu_smi"), said("stack.verify.set_env")]


def mindspore_stack(kb: KnowledgeBase, device: str, title: str) -> Stack:
    row = pick(kb, "mindspore", device, need_cann=device == "ascend")
    path = {"ascend": "mindspore", "gpu": "mindspore-gpu", "cpu": "mindspore-cpu"}[device]
    st = Stack(title, path)
    if row is None:
        st.notes.append(said("stack.none.mindspore", device=device))
        return st
    v = row.version
    st.components.append(Component("MindSpore", v, row.source, row.confidence, row.note or "", "mindspore"))
    cann = row.cann[0] if row.cann else None
    if device == "ascend" and cann:
        st.components.append(
            Component(
                said("stack.cann.name"),
                cann,
                row.source,
                row.confidence,
                said("stack.cann.mindspore"),
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
            row.numpy or said("stack.numpy.not_stated"),
            row.source,
            row.confidence,
            said("stack.numpy.mindspore"),
            "mindspore",
        )
    )
    pin = f"mindspore=={v}" if not v.endswith(".x") else f"mindspore=={v[:-2]}.*"
    st.install = [
        said("stack.install.conda", env="mindspore", python=py.version),
        _pip(st, pin, f"numpy{row.numpy or ''}"),
    ]
    gpu = [said("stack.verify.nvidia_smi")] if device == "gpu" else []
    st.verify = (ascend_verify() if device == "ascend" else gpu) + [
        said("stack.verify.mindspore_check"),
        said("stack.verify.numpy_below_2"),
        said("stack.verify.advisor_check_all"),
    ]
    return st


def torch_npu_stack(kb: KnowledgeBase, title: str) -> Stack:
    st = Stack(title, "pytorch-npu")
    row = pick(kb, "torch_npu", "npu", need_cann=True)
    if row is None:
        st.notes.append(said("stack.none.torch_npu"))
        return st
    tv, cann = row.torch or row.version, row.cann[0]
    src, conf = row.source, row.confidence
    st.components += [
        Component("PyTorch", tv, src, conf, said("stack.torch_npu.torch"), "torch_npu"),
        Component(said("stack.torch_npu.name"), row.version, src, conf, row.note or "", "torch_npu"),
        Component(said("stack.cann.name"), cann, src, conf, said("stack.cann.torch_npu"), "torch_npu"),
        _ascend_driver(cann),
    ]
    py = _python(row)
    py.kb_id = "torch_npu"
    st.components += [py, _pytorch_numpy(kb, tv)]
    st.install = [
        said("stack.install.conda", env="torch-npu", python=py.version),
        _pip(st, f"torch=={tv}", f"torch-npu=={row.version}"),
    ]
    st.verify = ascend_verify() + [said("stack.verify.torch_npu_count"), said("stack.verify.advisor_check")]
    return st


def pytorch_stack(kb: KnowledgeBase, device: str, title: str, python: Optional[str] = None) -> Stack:
    st = Stack(title, "pytorch-cuda" if device == "cuda" else "pytorch-cpu")
    row = pick(kb, "pytorch", device)
    if row is None:
        st.notes.append(said("stack.none.pytorch", device=device))
        return st
    v, src, conf = row.version, row.source, row.confidence
    st.components.append(Component("PyTorch", v, src, conf, row.note or "", "pytorch"))
    if device == "cuda":
        st.components.append(
            Component(
                said("stack.cuda.name"),
                said("stack.cuda.version", version=v),
                src,
                conf,
                said("stack.cuda.note"),
                "pytorch",
            )
        )
        st.components.append(
            Component(
                said("stack.driver.name"),
                said("stack.driver.any_line"),
                note=said("stack.driver.not_pinned"),
                kb_id="pytorch",
            )
        )
    py = _python(row, python)
    py.kb_id = "pytorch"
    st.components += [
        py,
        Component("NumPy", row.numpy or said("stack.numpy.either"), src, conf, said("stack.numpy.same_row"), "pytorch"),
    ]
    newer = [x for x in _versions(kb, "pytorch") if version_key(x.version) > version_key(v)]
    if newer:
        st.notes.append(said("stack.newer_unchecked", rows=tuple((x.version, x.confidence) for x in newer)))
    st.install = [said("stack.install.venv", python=py.version), _pip(st, f"torch=={v}.*")]
    st.verify = ([said("stack.verify.nvidia_smi_gpus")] if device == "cuda" else []) + [
        said("stack.verify.torch_cuda_count"),
        said("stack.verify.advisor_check"),
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


# --- stacks pinned from the routes a workflow is scored on (routes.yaml pins) -----------------------

# Packages pip installs from the index under these names; the others (the CANN toolkit, MindSpore Lite's
# download packages, MindIE's image, the MindSpeed suites' git tags) are fetched as the vendor documents.
PIP_PACKAGES = {
    "torch",
    "torch-npu",
    "mindspore",
    "mindformers",
    "mindone",
    "mindnlp",
    "mindcv",
    "mindyolo",
    "msadapter",
    "vllm",
    "vllm-ascend",
    "vllm-mindspore",
    "transformers",
    "peft",
    "accelerate",
    "datasets",
    "megatron-core",
    "tensorrt-llm",
    "numpy",
    "onnxruntime",
}
FETCHED = {  # a pin's package -> the catalogue's code for how it is fetched
    "CANN": "stack.fetch.cann",
    "mindspore-lite": "stack.fetch.mindspore_lite",
    "mindie": "stack.fetch.mindie",
    "mindspeed-llm": "stack.fetch.mindspeed_llm",
    "mindspeed-mm": "stack.fetch.mindspeed_mm",
    "mindspeed": "stack.fetch.mindspeed",
    "megatron-core": "stack.fetch.megatron_core",
    "edge CANN": "stack.fetch.edge_cann",
}
EDGE_PINS = ("edge SoC", "edge CANN", "edge converter")
"""A serving route's edge part (routes.yaml pins): the Ascend SoC, its CANN line and the converter path,
shown only where the route serves edge-ascend."""
# The Python line chosen inside a vendor's range: 3.11, the one line every vendor matrix in the
# knowledge base lists (MindSpore 2.9: 3.9-3.11; torch_npu 2.12: 3.10-3.12; PyTorch 2.13: 3.10-3.15)
# and that the HuggingFace libraries' native wheels have covered for years; within a range without it,
# the newest line not above PYTHON_NEWEST_LOCKED (assumption: a new CPython's native wheels lag by months).
PYTHON_LINE = "3.11"
PYTHON_NEWEST_LOCKED = "3.12"
HF_LIBRARIES = ("transformers", "accelerate", "datasets", "peft")
HF_ROUTE = "hf-peft-cuda"  # the routes.yaml entry whose pins name the HuggingFace libraries


def exact_version(version: str) -> bool:
    """A PEP 440 version pip can pin with == (2.12.0, 2.12.0.post3, 8.3.rc1), not a range or a tag."""
    from packaging.version import InvalidVersion, Version

    try:
        Version(version)
    except InvalidVersion:
        return False
    return True


def pip_requirement(package: str, version: str) -> Optional[str]:
    """'torch-npu==2.12.0' for an exact version, 'numpy>=1.26.4,<2' for a specifier, None when pip cannot
    take it (a package fetched otherwise, 'latest compatible', '10.x')."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    if package not in PIP_PACKAGES:
        return None
    if exact_version(version):
        return f"{package}=={version}"
    try:
        SpecifierSet(version)
    except InvalidSpecifier:
        return None
    return f"{package}{version}" if version[:1] in "<>=!~" else None


def python_lines(text: str) -> list[str]:
    """'3.10-3.12' -> ['3.10', '3.11', '3.12']; '3.11.4' -> ['3.11.4']; '3.10' -> ['3.10']."""
    m = re.fullmatch(r"3\.(\d+)-3\.(\d+)", text.strip())
    if m:
        return [f"3.{n}" for n in range(int(m.group(1)), int(m.group(2)) + 1)]
    return [text.strip()] if text.strip() else []


def choose_python(lines: list[str]) -> tuple[str, str]:
    """The Python line to lock inside a vendor's range, and why."""
    if not lines:
        return said("stack.python.not_stated"), said("stack.python.no_range")
    listed = ", ".join(lines)
    if len(lines) == 1:
        return lines[0], said("stack.python.only", listed=listed)
    if PYTHON_LINE in lines:
        return PYTHON_LINE, said("stack.python.every_vendor", listed=listed, line=PYTHON_LINE)
    below = [v for v in lines if version_key(v) <= version_key(PYTHON_NEWEST_LOCKED)]
    chosen = max(below, key=version_key) if below else min(lines, key=version_key)
    return chosen, said("stack.python.newest_locked", listed=listed, newest=PYTHON_NEWEST_LOCKED)


def _framework_python(kb: KnowledgeBase, framework: str) -> list[str]:
    """The Python lines of the framework's newest vendor-checked row (a route that pins no Python)."""
    fid, device = {"pytorch": ("pytorch", "cuda"), "torch_npu": ("torch_npu", "npu")}.get(
        framework, (framework, "ascend")
    )
    row = pick(kb, fid, device)
    return sorted(row.python, key=version_key) if row is not None else []


def newer_releases(kb: KnowledgeBase, package: str, version: str, route: str) -> Optional[str]:
    """'newer torch-npu releases: 2.13.0, 2.14.0; <route>'s table pins 2.12.0 (...)' from the knowledge
    base's rows newer than the pinned version: a reviewer asks why the newest is not recommended."""
    fid = {"torch": "pytorch", "torch-npu": "torch_npu", "mindspore": "mindspore"}.get(package)
    if fid is None or not exact_version(version):
        return None
    newer = sorted(
        (v for v in _versions(kb, fid) if version_key(v.version) > version_key(version)),
        key=lambda v: version_key(v.version),
    )
    if not newer:
        return None
    unchecked = [v for v in newer if not v.python]  # released, not in a vendor matrix yet
    return said(
        "stack.newer_releases",
        package=package,
        versions=tuple(v.version for v in newer),
        version=version,
        note=unchecked[-1].note if unchecked and unchecked[-1].note else "",
    )


def route_stack(
    kb: KnowledgeBase,
    used: object,
    title: str,
    *,
    python: Optional[str] = None,
    huggingface: bool = False,
    newer: bool = True,
    edge: bool = False,
) -> Stack:
    """One route's stack as the routes.yaml pins state it (a StackUsed of the workflow's RouteChoice):
    every pinned version exactly as its source cites it, the install lines pip takes (== for an exact
    version), the packages fetched otherwise, the Python locked inside the vendor's range, the
    HuggingFace libraries beside torch when HuggingFace is essential, and the newer releases explained."""
    source, confidence, rid = str(used.source), str(used.confidence), str(used.id)
    st = Stack(title, rid, source=source, confidence=confidence)
    pins = list(used.pins)
    if not (edge or getattr(used, "target", None) == "edge-ascend"):
        pins = [p for p in pins if p.package not in EDGE_PINS]  # the edge board's part: only where it serves
    py_pin = next((p for p in pins if p.package == "Python"), None)
    for pin in pins:
        if pin.package == "Python":
            continue
        note = pin.note or ""
        if not pin.confirmed:
            note = said("stack.pin.unconfirmed", note=note)
        st.components.append(Component(pin.package, pin.version, "", "" if pin.confirmed else "assumption", note, rid))
    packages = {p.package for p in pins}
    if huggingface and packages & {"torch", "torch-npu"} and not packages & set(HF_LIBRARIES):
        hf = next((r for r in kb.routes if r.id == HF_ROUTE), None)
        torch_pin = next((p.version for p in pins if p.package == "torch"), None)
        for pin in hf.pins if hf is not None else []:
            if pin.package in HF_LIBRARIES:
                note = said("stack.pin.beside_torch")
                if torch_pin and torch_pin != next((p.version for p in hf.pins if p.package == "torch"), None):
                    note += said("stack.pin.other_torch", torch=torch_pin)
                st.components.append(Component(pin.package, pin.version, hf.source, hf.confidence, note, hf.id))
    if "CANN" in packages:
        cann = next(p.version for p in pins if p.package == "CANN")
        st.components.append(_ascend_driver(cann))
    lines = python_lines(py_pin.version) if py_pin is not None else _framework_python(kb, str(used.framework))
    if python is not None:
        chosen, why = python, said("stack.python.same_env")
    else:
        chosen, why = choose_python(lines)
    st.components.append(Component("Python", chosen, note=why, kb_id=rid if py_pin else None))
    reqs = [r for c in st.components if (r := pip_requirement(c.name, c.version))]
    env = rid.replace("_", "-")
    st.install = [said("stack.install.conda", env=env, python=chosen)]
    if reqs:
        st.install.append(_pip(st, *reqs))
    for c in st.components:
        how = said(FETCHED[c.name]) if c.name in FETCHED else None
        if how is not None or (c.name in PIP_PACKAGES and pip_requirement(c.name, c.version) is None):
            st.install.append(said("stack.install.fetched", name=c.name, version=c.version, how=how, note=c.note))
    ascend = bool(packages & {"CANN", "torch-npu"})
    if "CUDA" in packages:
        cuda = next(p.version for p in pins if p.package == "CUDA")
        st.components.append(
            Component(
                said("stack.driver.name"),
                said("stack.driver.for_cuda", cuda=cuda),
                note=said("stack.driver.table"),
                kb_id=rid,
            )
        )
        st.verify.append(said("stack.verify.nvidia_smi_pin"))
    if "CANN" in packages:
        st.verify += ascend_verify() + [said("stack.verify.uname")]
    if "edge SoC" in packages:
        st.verify.append(said("stack.verify.edge_npu_smi"))
    if "torch-npu" in packages:
        st.verify.append(said("stack.verify.torch_npu"))
    elif "torch" in packages and not ascend:
        st.verify.append(said("stack.verify.torch_cuda"))
    if "mindspore" in packages:
        st.verify.append(said("stack.verify.mindspore"))
    for pkg in ("vllm", "vllm-ascend", "mindformers", "transformers", "tensorrt-llm"):
        if pkg in packages:
            st.verify.append(said("stack.verify.pip_show", package=pkg))
    if newer:
        st.notes += [n for pin in pins if (n := newer_releases(kb, pin.package, pin.version, str(used.name)))]
    return st


def _route_title(used: object, stage_word: str, workflow: str, where: str) -> str:
    return said(
        "stack.title.route",
        stage=stage_word,
        name=used.name,
        target=getattr(used, "target", None),
        workflow=label_of(workflow),
        where=where,
    )


def label_of(workflow: str) -> str:
    return {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "Hybrid"}.get(workflow, workflow)


def stacks_for(report: "ReportView", kb: Optional[KnowledgeBase]) -> list[Stack]:
    """The recommended workflow's stacks, training then serving, pinned from the routes it is scored on
    (its RouteChoice); a training path without a route in the knowledge base (CPU) from the framework's
    compatibility matrix. For hybrid, the PyTorch prototype environment first, on the production
    environment's Python."""
    if kb is None:
        return []
    wf = report.recommendation.workflow
    proj = next((p for p in report.projections if p.workflow == wf), None)
    score = next((s for s in report.scores if s.workflow == wf), None)
    if proj is None:
        return []
    where = f"{proj.accelerator or proj.target} x{proj.devices}"
    hf = report.requirements.needs.huggingface == "essential"
    used = list(score.route.stacks) if score is not None and score.route is not None else []
    out: list[Stack] = []
    training = next((u for u in used if u.stage == "training"), None)
    if training is not None:
        stage = said("stack.title.production_training") if wf == "hybrid" else said("stack.title.training_stage")
        out.append(route_stack(kb, training, _route_title(training, stage, wf, where), huggingface=hf))
    else:
        name = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "MindSpore"}.get(wf, wf)
        work = report.requirements.workload
        if work is None or work.kind != "inference":
            main = stack_for_path(kb, proj.path, said("stack.title.training", name=name, where=where, path=proj.path))
            if main is not None:
                out.append(main)
    python = next((c.version for st in out for c in st.components if c.name == "Python"), None)
    serving: dict[str, list] = {}  # one stack per serving route, its targets named together
    for u in used:
        if u.stage == "serving":
            serving.setdefault(u.id, []).append(u)
    for same in serving.values():
        targets = ", ".join(u.target for u in same if u.target)
        title = said("stack.title.serving", name=same[0].name, targets=targets or where, workflow=label_of(wf))
        edge = any(u.target == "edge-ascend" for u in same)
        out.append(route_stack(kb, same[0], title, python=python, newer=False, edge=edge))
    if wf == "hybrid":
        available = list(report.requirements.hardware.available)
        proto_route = next((r for r in kb.routes if r.id == "pytorch-cuda"), None)
        if "nvidia" in available and proto_route is not None:
            title = said("stack.title.prototype_nvidia")
            st = route_stack(kb, proto_route, title, python=python, huggingface=hf)
        else:
            st = stack_for_path(kb, "pytorch-cpu", said("stack.title.prototype_cpu"), python)
        numpy = next((c for s in out for c in s.components if c.name in ("NumPy", "numpy")), None)
        if st is not None and numpy is not None:
            # Checkpoint conversion and parity checks load both frameworks' outputs: one NumPy line.
            st.components = [c for c in st.components if c.name not in ("NumPy", "numpy")]
            st.components.append(
                Component(
                    "numpy",
                    numpy.version,
                    numpy.source,
                    numpy.confidence,
                    said("stack.numpy.production"),
                    numpy.kb_id,
                )
            )
            if st.pip:  # the one NumPy joins the pip line, first
                old = said("stack.install.pip", reqs=tuple(st.pip))
                new = _pip(st, f"numpy{numpy.version}", *st.pip)
                st.install = [new if line == old else line for line in st.install]
        if st is not None:
            out.insert(0, st)
    _say_cann_lines(out)
    return out


def _say_cann_lines(stacks: list[Stack]) -> None:
    """Training and serving pinned to different CANN lines cannot share one environment: said on the
    serving stack that differs (one CANN toolkit per host or container, a driver that supports both)."""
    lines = [(st, next((c.version for c in st.components if c.name == "CANN"), None)) for st in stacks]
    first = next(((st, v) for st, v in lines if v), None)
    for st, version in lines:
        if first is not None and version and version != first[1]:
            st.notes.append(said("stack.cann.differs", version=version, other=first[1], title=first[0].title))
