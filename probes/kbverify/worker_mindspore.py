"""MindSpore side of `advisor kb verify`: look up each mapped API and run the ones with a spec on tiny
tensors (PyNative, the installed device). Child only: `python -m probes.kbverify.worker_mindspore CASES`."""

from __future__ import annotations

import sys

from probes.kbverify import worker_common as wc


class Adapter:
    side = "ms"

    def __init__(self):
        import mindspore as ms

        self.ms = ms
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.runtime.launch_blocking()  # each op's error surfaces at its own call, not at the next one

    def version(self) -> str:
        return self.ms.__version__

    def device(self) -> str:
        try:
            return self.ms.get_context("device_target")
        except Exception:  # noqa: BLE001 - older releases name it differently
            return "unknown"

    def call(self, target, spec, data, side):
        import numpy as np

        ms = self.ms
        tensor = ms.Tensor
        args, kwargs = wc.args_of(spec, data, side, tensor)
        kind = spec["call"]
        if kind == "snippet":
            ns = {"target": target, "ms": ms, "np": np, "data": data, **{k: tensor(v) for k, v in data.items()}}
            return {"output": wc.to_list(np, _np(wc.run_snippet(spec["ms_code"], ns)))}
        if kind == "layer":
            out = _np(target(*spec["ctor"], **spec.get("ctor_kwargs", {}))(*args))
            return {"output": wc.to_list(np, out)}
        if kind == "fn":
            return {"output": wc.to_list(np, _np(target(*args, **kwargs)))}
        name = spec["ms"].rsplit(".", 1)[-1]
        if kind == "method":
            return {"output": wc.to_list(np, _np(getattr(args[0], name)(*args[1:])))}
        # inplace / inplace_fn: the receiver must hold the result afterwards
        before = args[0].asnumpy().copy()
        result = getattr(args[0], name)(*args[1:]) if kind == "inplace" else target(*args)
        after = args[0].asnumpy()
        res = result.asnumpy() if result is not None else None
        inplace = res is not None and np.array_equal(after, res) and not np.array_equal(before, res)
        row = {"output": wc.to_list(np, res if res is not None else after)}
        if not inplace:
            row.update(
                status="not_inplace",
                error="returned a new tensor and left the receiver unchanged"
                if np.array_equal(after, before)
                else "the receiver changed but differs from the result",
            )
        return row


def _np(value):
    if isinstance(value, (list, tuple)):
        return [_np(v) for v in value]
    return value.asnumpy() if hasattr(value, "asnumpy") else value


def main(argv=None) -> int:
    return wc.main_for(Adapter(), argv)


if __name__ == "__main__":
    sys.exit(main())
