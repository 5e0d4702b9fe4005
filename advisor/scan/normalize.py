"""The Normalize 0-1 vs 0-255 trap: a torchvision Normalize whose mean/std are on the 0-1 scale (it runs
after ToTensor on 0-1 floats) copied into MindSpore's `dataset.vision.Normalize`, which reads uint8 HWC
images in 0-255, leaves the input almost unnormalised and the loss flat.

Read from the call's literals (or module-level constants it names); values already on the 0-255 scale
are not the trap and are not flagged. `advisor probe --accuracy` shows the trap live (its Normalize
check, probes/accuracy/worker_normalize.py)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from advisor.scan.patterns import SEED_000, SEED_002

CLASSES = {"torchvision.transforms.Normalize", "torchvision.transforms.v2.Normalize"}
FUNCTIONS = {"torchvision.transforms.functional.normalize", "torchvision.transforms.v2.functional.normalize"}
NAMES = CLASSES | FUNCTIONS
# Above this a mean or std is a pixel value, not a fraction of one (0-1 values never exceed 1).
UNIT_MAX = 1.0
MAX_SNIPPET = 100  # characters of the call shown as the "before" of the fix
TRAP = "the Normalize 0-1 vs 0-255 trap"
CITED = (
    f"{SEED_000} pitfall log, pitfall 1: copied verbatim, the loss did not fall, 1.5 h to find; "
    f"{SEED_002}4.1: Normalize written wrongly, most of a day"
)
# Where the trap is shown live: the accuracy probe's Normalize check (advisor.decision.accuracy.normalize_verdict).
CHECK = (
    f"This is {TRAP} ({CITED}). Check it live: `advisor probe --accuracy` (with MindSpore installed) runs its "
    "Normalize check, MindSpore's vision.Normalize on uint8 images with 0-1 values and with 0-255 ones, "
    "and shows the normalised batch mean and the first loss of each."
)
PIPELINE = "data-pipeline hazard"
# Inside an nn.Module the Normalize runs on tensors the port keeps as they are: the trap is in the pipeline.
IN_MODEL = (
    "in model code, where it runs on tensors: ported as tensor arithmetic ((x - mean) / std) on the same 0-1 "
    f"input, the values stay; {TRAP} applies only if it moves into a mindspore.dataset pipeline on uint8 "
    "images (then multiply by 255)."
)


def in_model(message: str) -> str:
    """The message for a Normalize inside model code (an nn.Module), where it is not a pipeline step."""
    head, found, _ = message.partition(f": {PIPELINE}")
    return f"{head}: {IN_MODEL}" if found else message


@dataclass(frozen=True)
class Finding:
    message: str
    before: Optional[str]  # the call as written, when its values were read
    after: Optional[str]  # the MindSpore-side call with the values x 255


def constants(tree: ast.Module) -> dict[str, object]:
    """Module-level `NAME = <literal>` assignments (MEAN = (0.485, 0.456, 0.406))."""
    out: dict[str, object] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
    return out


def _value(node: ast.AST | None, names: dict[str, object]) -> Optional[list[float]]:
    """A number or a list/tuple of numbers, as floats; None when not a literal the scan can read."""
    if node is None:
        return None
    if isinstance(node, ast.Name) and node.id in names:
        v = names[node.id]
    else:
        try:
            v = ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    items = v if isinstance(v, (list, tuple)) else [v]
    if not items or not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in items):
        return None
    return [float(n) for n in items]


def _args(q: str, call: ast.Call) -> tuple[ast.AST | None, ast.AST | None]:
    """The mean and std nodes: Normalize(mean, std) / normalize(tensor, mean, std), or by keyword."""
    skip = 1 if q in FUNCTIONS else 0
    pos = list(call.args[skip : skip + 2])
    mean = pos[0] if pos else None
    std = pos[1] if len(pos) > 1 else None
    for kw in call.keywords:
        if kw.arg == "mean":
            mean = kw.value
        elif kw.arg == "std":
            std = kw.value
    return mean, std


def _list(values: list[float], scale: float = 1.0) -> str:
    """[0.4914, 0.4822] as written; x 255 to two decimals ([125.31, 122.96])."""
    digits = 4 if scale == 1.0 else 2
    return "[" + ", ".join(f"{round(v * scale, digits):g}" for v in values) + "]"


def judge(q: str, call: ast.Call | None, names: dict[str, object]) -> Optional[Finding]:
    """The finding for one use of a torchvision Normalize, or None when its values are on the 0-255
    scale already (no trap). A use whose values the scan cannot read is flagged, saying so."""
    short = q.rsplit(".", 1)[-1]
    mean = std = None
    if call is not None:
        mean_node, std_node = _args(q, call)
        mean, std = _value(mean_node, names), _value(std_node, names)
    known = [*(mean or []), *(std or [])]
    if known and max(abs(v) for v in known) > UNIT_MAX:
        return None  # pixel-scale values: what MindSpore's vision.Normalize on uint8 expects
    head = f"`{q}`"
    if mean is not None and std is not None:
        head += f" with mean {_list(mean)}, std {_list(std)} on the 0-1 scale"
        after = f"vision.Normalize(mean={_list(mean, 255)}, std={_list(std, 255)})  # uint8 HWC, before HWC2CHW"
        before = ast.unparse(call) if call is not None else f"{short}({_list(mean)}, {_list(std)})"
        before = before if len(before) <= MAX_SNIPPET else before[: MAX_SNIPPET - 3] + "..."
    else:
        head += " (its mean/std are not literals the scan can read: check their scale)"
        before = after = None
    message = (
        f"{head}: {PIPELINE}, {TRAP}. torchvision normalizes ToTensor's 0-1 floats; MindSpore's "
        "dataset.vision.Normalize reads uint8 HWC images in 0-255, so values copied verbatim leave the input "
        "almost unnormalised (multiply by 255" + (f": {after.split('  #')[0]}" if after else "") + ")."
    )
    return Finding(message, before, after)
