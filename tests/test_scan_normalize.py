"""The scan points to the Normalize 0-1 vs 0-255 trap: torchvision-style 0-1 mean/std in
code to migrate become a data-pipeline hazard with the MindSpore-side values (x 255) and a pointer to the
live check in `advisor probe --accuracy`; 0-255 values and MindSpore code are not flagged."""

import textwrap

import pytest

from advisor.cli import build_parser
from advisor.scan import normalize, scan_path

CIFAR = "transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))"
IMAGENET = "transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])"
PIXELS = "transforms.Normalize(mean=[123.675, 116.28, 103.53], std=[58.395, 57.12, 57.375])"


def _project(tmp_path, files):
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return scan_path(tmp_path)


def _normalize(result):
    return [h for h in result.hazards if h.kind == "normalize"]


def _summary(result):
    return next(s for s in result.hazard_summary if s.kind == "normalize")


def test_zero_one_values_are_the_trap_with_the_values_times_255_and_the_live_check(tmp_path):
    result = _project(
        tmp_path,
        {
            "data/pipeline.py": f"""
            import torchvision.transforms as transforms

            train = transforms.Compose([transforms.ToTensor(), {CIFAR}])
            test = transforms.Compose([transforms.ToTensor(), {IMAGENET}])
            """
        },
    )
    cifar, imagenet = _normalize(result)
    assert (cifar.file, cifar.line, imagenet.line) == ("data/pipeline.py", 3, 4)
    assert cifar.role == "data" and not cifar.excluded
    for h in (cifar, imagenet):
        assert normalize.PIPELINE in h.message and normalize.TRAP in h.message and "multiply by 255" in h.message
    # the values as written, and x 255 for MindSpore's vision.Normalize (0.4914 * 255 = 125.307)
    assert "mean [0.4914, 0.4822, 0.4465], std [0.247, 0.243, 0.261]" in cifar.message
    assert "vision.Normalize(mean=[125.31, 122.96, 113.86], std=[62.98, 61.96, 66.56])" in cifar.message
    assert "vision.Normalize(mean=[123.67, 116.28, 103.53], std=[58.4, 57.12, 57.38])" in imagenet.message

    s = _summary(result)
    assert s.pitfall == "normalize-range" and s.count == 2 and s.risk == "low"
    # the fix: the KB pitfall's, then the trap cited by the field report's title and section, then the check
    assert "`advisor probe --accuracy`" in s.fix and "Normalize check" in s.fix
    assert '"MindSpore vs PyTorch, measured on the same task" (field report), pitfall log, pitfall 1' in s.fix
    assert "seeds/" not in s.fix and all("seeds/" not in h.message for h in (cifar, imagenet))
    assert cifar.fix == s.fix
    # the before/after is the first place's own call and its values x 255
    assert s.example.before == CIFAR
    assert s.example.after.startswith("vision.Normalize(mean=[125.31, 122.96, 113.86], std=[62.98, 61.96, 66.56])")
    # the API is costed once, in the hazard
    api = next(a for a in result.apis if a.name == "torchvision.transforms.Normalize")
    assert api.effort_hours == (0.0, 0.0) and "normalize hazard" in api.effort_basis


def test_pixel_scale_values_and_mindspore_code_are_not_flagged(tmp_path):
    result = _project(
        tmp_path,
        {
            "data/pixels.py": f"""
            import torchvision.transforms as transforms
            norm = {PIXELS}
            """,
            "ms/pipeline.py": """
            import mindspore.dataset.vision as vision
            from mindspore.dataset.vision import Normalize
            a = vision.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
            b = Normalize([0.5], [0.5])
            """,
        },
    )
    assert _normalize(result) == []
    # still an API to rename, priced as one (no hazard covers it)
    api = next(a for a in result.apis if a.name == "torchvision.transforms.Normalize")
    assert api.effort_hours[1] > 0 and "hazard" not in api.effort_basis


def test_mindspore_only_project_has_no_normalize_hazard(tmp_path):
    result = _project(
        tmp_path,
        {
            "data.py": """
            from mindspore.dataset import vision
            ops = [vision.Normalize(mean=[0.4914, 0.4822, 0.4465], std=[0.247, 0.243, 0.261]), vision.HWC2CHW()]
            """
        },
    )
    assert result.framework == "mindspore" and _normalize(result) == []


def test_weighed_by_role_examples_apart_model_code_says_where_the_trap_is(tmp_path):
    result = _project(
        tmp_path,
        {
            "examples/demo.py": """
            from torchvision import transforms
            t = transforms.Normalize((0.1307,), (0.3081,))
            """,
            "models/net.py": """
            from torch import nn
            import torchvision.transforms as T

            class Net(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = T.Normalize([0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
            """,
            "train.py": f"""
            import torch
            import torchvision.transforms as transforms
            norm = {IMAGENET}
            opt = torch.optim.SGD([], lr=0.1)
            """,
        },
    )
    by_file = {h.file: h for h in _normalize(result)}
    assert set(by_file) == {"examples/demo.py", "models/net.py", "train.py"}
    demo, model, train = by_file["examples/demo.py"], by_file["models/net.py"], by_file["train.py"]
    assert demo.role == "examples" and demo.excluded
    assert train.role == "training" and not train.excluded
    assert model.role == "model" and not model.excluded
    assert normalize.IN_MODEL in model.message and normalize.PIPELINE not in model.message
    s = _summary(result)
    assert s.count == 3 and s.excluded == 1
    # the snippet is the first included pipeline place's: not the excluded demo, not the model's tensor op
    assert s.example.before == IMAGENET
    # the excluded place is priced apart: what it adds is in excluded_hours, not in the hazard's hours
    item = next(i for i in result.effort_breakdown.items if i.item == "hazard normalize")
    assert item.count == 2


def test_module_constants_functional_form_and_unreadable_values(tmp_path):
    result = _project(
        tmp_path,
        {
            "data/aug.py": """
            from torchvision.transforms import Normalize
            from torchvision.transforms import functional as F

            MEAN = (0.485, 0.456, 0.406)
            STD = [0.229, 0.224, 0.225]
            PIX_MEAN = (123.675, 116.28, 103.53)

            a = Normalize(MEAN, STD)
            b = Normalize(mean=PIX_MEAN, std=(58.395, 57.12, 57.375))

            def apply(x, mean, std):
                y = F.normalize(x, [0.5], [0.5])
                return Normalize(mean, std)(y)
            """
        },
    )
    found = {h.line: h for h in _normalize(result)}
    assert sorted(found) == [8, 12, 13]  # line 9 is pixel scale
    assert "vision.Normalize(mean=[123.67, 116.28, 103.53]" in found[8].message
    assert "torchvision.transforms.functional.normalize" in found[12].message
    assert "mean [0.5], std [0.5]" in found[12].message  # the tensor argument is not the mean
    assert "not literals the scan can read" in found[13].message and "vision.Normalize(" not in found[13].message


def test_the_pointer_names_a_real_command_and_the_probes_correct_values():
    """`advisor probe --accuracy` parses, and the scan's x 255 of the probe's 0-1 values is the probe's
    own 0-255 variant (probes/accuracy/worker_normalize.py)."""
    from probes.accuracy.worker_normalize import VARIANTS

    args = build_parser().parse_args(["probe", "--accuracy"])
    assert args.accuracy is True
    wrong, right = VARIANTS["pytorch_values_0_1"], VARIANTS["correct_0_255"]
    import ast

    call = ast.parse(f"transforms.Normalize([{wrong[0]}], [{wrong[1]}])").body[0].value
    finding = normalize.judge("torchvision.transforms.Normalize", call, {})
    assert finding.after.startswith(f"vision.Normalize(mean=[{right[0]:g}], std=[{right[1]:g}])")


@pytest.mark.slow
def test_the_after_snippet_runs_in_mindspore_and_matches_torchvision_semantics():
    """The scan's MindSpore-side call, run by the installed MindSpore on a uint8 HWC image, gives what
    torchvision's ToTensor + Normalize with the original values gives (to float32 rounding of the x 255)."""
    import ast

    import numpy as np
    from mindspore.dataset import vision

    mean, std = (0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261)
    call = ast.parse(f"transforms.Normalize({mean}, {std})").body[0].value
    after = normalize.judge("torchvision.transforms.Normalize", call, {}).after
    op = eval(after.split("  #")[0], {"vision": vision})  # noqa: S307 - the scan's own snippet
    img = np.random.default_rng(0).integers(0, 256, size=(8, 8, 3), dtype=np.uint8)
    got = op(img)
    expected = (img / 255.0 - np.array(mean)) / np.array(std)
    # rounding the x 255 values to 2 decimals moves a result by at most ~0.005/(std*255) + mean error
    assert np.abs(got - expected).max() < 1e-3
    wrong = vision.Normalize(mean=list(mean), std=list(std))(img)
    assert np.abs(wrong.mean()) > 100  # the trap: copied verbatim, the input stays near its pixel scale
