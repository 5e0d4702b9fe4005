"""PyTorch side of `advisor kb verify`: the counterpart call of each spec, on the same inputs, for the
runner to compare with. Child only: `python -m probes.kbverify.worker_torch CASES`."""

from __future__ import annotations

import sys

from probes.kbverify import worker_common as wc


class Adapter:
    side = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        torch.manual_seed(0)

    def version(self) -> str:
        return self.torch.__version__

    def device(self) -> str:
        return "CPU"

    def call(self, target, spec, data, side):
        import numpy as np

        torch = self.torch
        args, kwargs = wc.args_of(spec, data, side, lambda a: torch.from_numpy(a.copy()))
        kind = spec["call"]
        if kind == "snippet":  # may need autograd: not under no_grad
            ns = {"target": target, "torch": torch, "np": np, "data": data}
            ns.update({k: torch.from_numpy(v.copy()) for k, v in data.items()})
            return {"output": wc.to_list(np, _np(wc.run_snippet(spec["torch_code"], ns)))}
        with torch.no_grad():
            if kind == "layer":
                out = target(*spec["torch_ctor"], **spec.get("torch_ctor_kwargs", {}))(*args)
            elif kind == "fn":
                out = target(*args, **kwargs)
            elif kind in ("method", "inplace"):
                out = getattr(args[0], spec["torch"].rsplit(".", 1)[-1])(*args[1:])
            else:  # inplace_fn
                out = target(*args)
        return {"output": wc.to_list(np, _np(out))}


def _np(value):
    if isinstance(value, (list, tuple)):
        return [_np(v) for v in value]
    return value.detach().numpy() if hasattr(value, "detach") else value


def main(argv=None) -> int:
    return wc.main_for(Adapter(), argv)


if __name__ == "__main__":
    sys.exit(main())
