"""Operator placement from an ONNX Runtime profile (pure; tested on real-format fixtures).

With SessionOptions.enable_profiling, ONNX Runtime writes a Chrome-trace JSON list; every executed
node is an event {"cat": "Node", "name": "<node>_kernel_time", "args": {"op_name", "provider"}}.
A node whose provider is not the one asked for ran on another execution provider: the seeds'
"silent CPU fallback" (no error, only slower)."""

from __future__ import annotations

from collections import Counter


def node_placement(events: list, chosen: str) -> dict:
    """{chosen, nodes, by_provider {provider: n}, fallback [{node, op, provider}], fallback_ops}."""
    seen: dict[str, tuple[str, str]] = {}
    for ev in events if isinstance(events, list) else []:
        if not isinstance(ev, dict) or ev.get("cat") != "Node":
            continue
        args = ev.get("args") or {}
        provider, op = args.get("provider"), args.get("op_name")
        if not provider or not op:
            continue
        name = str(ev.get("name", ""))
        for suffix in ("_kernel_time", "_fence_before", "_fence_after"):
            if name.endswith(suffix):
                name = name[: -len(suffix)]
        seen.setdefault(name, (str(op), str(provider)))
    by_provider = Counter(p for _op, p in seen.values())
    fallback = [{"node": n, "op": op, "provider": p} for n, (op, p) in seen.items() if p != chosen]
    return {
        "chosen": chosen,
        "nodes": len(seen),
        "by_provider": dict(by_provider),
        "fallback": fallback,
        "fallback_ops": sorted({f["op"] for f in fallback}),
    }
