"""The software stack to install, pinned from the knowledge base's compatibility matrix
(knowledge/data/frameworks.yaml) for one framework path on one kind of hardware, with the commands
that verify it. Seed 002 §3.2 and §5.6: lock versions to the vendor matrix, not to "latest".

`stacks_for(report, kb)` gives the stacks of the recommended workflow: one for most workflows, two for
hybrid (the PyTorch prototype environment, then the MindSpore production environment). Pure: reads
the report and the knowledge base, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

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


def _get(obj: Any, key: str, default: Any = None) -> Any:
    value = obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)
    return default if value is None else value


def version_key(text: str) -> tuple:
    """'2.7.1.post2' > '2.7.1' > '2.6.0-rc1'; 'x' components sort low."""
    parts = re.findall(r"\d+|rc|post", str(text).lower())
    key: list[int] = []
    for p in parts:
        key.append(-1 if p == "rc" else (0 if p == "post" else int(p)))
    return tuple(key)


def _framework(kb: Any, fid: str) -> Any:
    for f in _get(kb, "frameworks", []) or []:
        if _get(f, "id") == fid:
            return f
    return None


def pick(kb: Any, fid: str, device: str, need_cann: bool = False) -> Any | None:
    """The newest release listed for `device` with a known Python range (and CANN pairing when
    asked), preferring vendor-confirmed rows over secondary or derived ones."""
    fw = _framework(kb, fid)
    rows = [
        v
        for v in _get(fw, "versions", []) or []
        if device in (_get(v, "devices", []) or []) and _get(v, "python", []) and (_get(v, "cann", []) or not need_cann)
    ]
    if not rows:
        return None
    best = min(_RANK.get(_get(v, "confidence"), 9) for v in rows)
    return max(
        (v for v in rows if _RANK.get(_get(v, "confidence"), 9) == best), key=lambda v: version_key(_get(v, "version"))
    )


def _python(row: Any, prefer: str | None = None) -> Component:
    versions = sorted(_get(row, "python", []), key=version_key)
    chosen = prefer if prefer in versions else versions[-1]
    why = (
        "the production environment's, so code and checkpoints move unchanged" if chosen == prefer else "newest chosen"
    )
    return Component(
        "Python",
        chosen,
        note=f"listed for this release: {', '.join(versions)} ({why})",
        source=_get(row, "source", ""),
        confidence=_get(row, "confidence", ""),
    )


def _pytorch_numpy(kb: Any, torch_version: str) -> Component:
    """NumPy for a PyTorch version: the nearest PyTorch row at or below it."""
    fw = _framework(kb, "pytorch")
    rows = [v for v in _get(fw, "versions", []) or [] if version_key(_get(v, "version")) <= version_key(torch_version)]
    if not rows:
        return Component("NumPy", "not in the knowledge base", note=f"no PyTorch row at or below {torch_version}")
    row = max(rows, key=lambda v: version_key(_get(v, "version")))
    spec = _get(row, "numpy")
    return Component(
        "NumPy",
        spec or "1.x or 2.x",
        source=_get(row, "source", ""),
        confidence=_get(row, "confidence", ""),
        kb_id="pytorch",
        note=_get(row, "note", "") or f"from the PyTorch {_get(row, 'version')} row",
    )


def _ascend_driver(cann: str) -> Component:
    return Component(
        "Ascend driver + firmware (HDK)",
        f"the release paired with CANN {cann}",
        kb_id="version-matrix",
        note="not pinned in the knowledge base: take the HDK version from the CANN release notes; install "
        "driver and firmware first and check `npu-smi info` before anything else (seed 002 §3.2)",
    )


ASCEND_VERIFY = [
    "npu-smi info    # every card listed, health OK, no driver/firmware mismatch",
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh    # CANN environment (put it in ~/.bashrc)",
]


def mindspore_stack(kb: Any, device: str, title: str) -> Stack:
    row = pick(kb, "mindspore", device, need_cann=device == "ascend")
    path = {"ascend": "mindspore", "gpu": "mindspore-gpu", "cpu": "mindspore-cpu"}[device]
    st = Stack(title, path)
    if row is None:
        st.notes.append(f"the knowledge base lists no MindSpore release for {device} with a known Python range")
        return st
    v = _get(row, "version")
    st.components.append(
        Component(
            "MindSpore", v, _get(row, "source", ""), _get(row, "confidence", ""), _get(row, "note", ""), "mindspore"
        )
    )
    cann = (_get(row, "cann", []) or [None])[0]
    if device == "ascend" and cann:
        st.components.append(
            Component(
                "CANN toolkit",
                cann,
                _get(row, "source", ""),
                _get(row, "confidence", ""),
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
            _get(row, "numpy") or "not stated",
            _get(row, "source", ""),
            _get(row, "confidence", ""),
            "NumPy 2 breaks MindSpore's PyNative mode (`advisor kb show numpy-2-breaks-mindspore`)",
            "mindspore",
        )
    )
    pin = f"mindspore=={v}" if not v.endswith(".x") else f"mindspore=={v[:-2]}.*"
    st.install = [
        f"conda create -n mindspore python={py.version} -y && conda activate mindspore",
        f'pip install "{pin}" "numpy{_get(row, "numpy") or ""}"',
    ]
    st.verify = (ASCEND_VERIFY if device == "ascend" else ["nvidia-smi"] if device == "gpu" else []) + [
        'python -c "import mindspore; mindspore.run_check()"    # prints the version and runs one operator',
        'python -c "import numpy; print(numpy.__version__)"    # must be below 2',
        "advisor check    # host, drivers, frameworks and versions in one report",
    ]
    return st


def torch_npu_stack(kb: Any, title: str) -> Stack:
    st = Stack(title, "pytorch-npu")
    row = pick(kb, "torch_npu", "npu", need_cann=True)
    if row is None:
        st.notes.append("the knowledge base lists no torch_npu release with a CANN pairing and a Python range")
        return st
    tv, cann = _get(row, "torch") or _get(row, "version"), _get(row, "cann")[0]
    src, conf = _get(row, "source", ""), _get(row, "confidence", "")
    st.components += [
        Component("PyTorch", tv, src, conf, "the PyTorch version this torch_npu release is built for", "torch_npu"),
        Component("torch_npu adapter", _get(row, "version"), src, conf, _get(row, "note", ""), "torch_npu"),
        Component("CANN toolkit", cann, src, conf, "the CANN line this torch_npu release pairs with", "torch_npu"),
        _ascend_driver(cann),
    ]
    py = _python(row)
    py.kb_id = "torch_npu"
    st.components += [py, _pytorch_numpy(kb, tv)]
    st.install = [
        f"conda create -n torch-npu python={py.version} -y && conda activate torch-npu",
        f'pip install "torch=={tv}" "torch-npu=={_get(row, "version")}"',
    ]
    st.verify = ASCEND_VERIFY + [
        'python -c "import torch, torch_npu; print(torch.__version__, torch_npu.__version__, torch.npu.is_available(), '
        'torch.npu.device_count())"',
        "advisor check",
    ]
    return st


def pytorch_stack(kb: Any, device: str, title: str, python: str | None = None) -> Stack:
    st = Stack(title, "pytorch-cuda" if device == "cuda" else "pytorch-cpu")
    row = pick(kb, "pytorch", device)
    if row is None:
        st.notes.append(f"the knowledge base lists no PyTorch release for {device} with a known Python range")
        return st
    v, src, conf = _get(row, "version"), _get(row, "source", ""), _get(row, "confidence", "")
    st.components.append(Component("PyTorch", v, src, conf, _get(row, "note", ""), "pytorch"))
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
        Component("NumPy", _get(row, "numpy") or "1.x or 2.x", src, conf, "from the same row", "pytorch"),
    ]
    newer = [
        x for x in _get(_framework(kb, "pytorch"), "versions", []) if version_key(_get(x, "version")) > version_key(v)
    ]
    if newer:
        st.notes.append(
            "newer rows in the knowledge base lack a vendor-checked Python range: "
            + ", ".join(f"{_get(x, 'version')} ({_get(x, 'confidence')})" for x in newer)
        )
    st.install = [f"python{py.version} -m venv .venv && . .venv/bin/activate", f'pip install "torch=={v}.*"']
    st.verify = (["nvidia-smi    # driver loaded, every GPU listed"] if device == "cuda" else []) + [
        'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), torch.cuda.device_count())"',
        "advisor check",
    ]
    return st


def stack_for_path(kb: Any, path: str, title: str, python: str | None = None) -> Stack | None:
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


def stacks_for(report: Any, kb: Any) -> list[Stack]:
    """The recommended workflow's stacks: the path its projection trains on; for hybrid, the PyTorch
    prototype environment on the prototyping hardware first."""
    if kb is None:
        return []
    wf = _get(_get(report, "recommendation"), "workflow")
    proj = next((p for p in _get(report, "projections", []) if _get(p, "workflow") == wf), None)
    if proj is None:
        return []
    where = _get(proj, "accelerator") or _get(proj, "target")
    name = {"pytorch": "PyTorch", "mindspore": "MindSpore", "hybrid": "MindSpore"}.get(wf, wf)
    stage = "Production" if wf == "hybrid" else "Training"
    main = stack_for_path(
        kb, _get(proj, "path"), f"{stage}: {name} on {where} x{_get(proj, 'devices', 1)} ({_get(proj, 'path')})"
    )
    out = [main] if main is not None else []
    if wf == "hybrid":
        available = list(_get(_get(_get(report, "requirements"), "hardware"), "available", []) or [])
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
