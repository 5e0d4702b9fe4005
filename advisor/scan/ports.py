"""The maintained MindSpore ports of what a project builds on, offered with their coverage: which of the
project's architectures (model families) each port has and which it lacks. Adapting a port that has the
project's models replaces re-implementing them; the routes helper prices that from ScanResult.ports.

A family is named only on the project's own evidence: the classes it defines, the names it imports, the
model ids and config names in its strings, its file names. What each port has was read from the port's
own repository (the source below says which snapshot).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from advisor.scan.models import PortOffer


@dataclass(frozen=True)
class Port:
    port: str
    upstream: str
    roots: tuple[str, ...]  # importing one of these shows the project builds on the upstream
    families: dict[str, str]  # family -> pattern on one lower-case token (a class, an imported name, a string, a path)
    has: Optional[frozenset[str]]  # the families the port has; None: it runs every family of the upstream
    source: str
    own_evidence: bool = True  # a project that implements a family itself (no import) is offered the port too
    paths: bool = True  # its file and folder names are evidence too (yolov5/, animatediff/)


def _fam(**patterns: str) -> dict[str, str]:
    return {name.replace("_", " "): pattern for name, pattern in patterns.items()}


def _whole(**patterns: str) -> dict[str, str]:
    """Families named by a whole token: the name, then only a size or variant (resnet50, vit_base_patch16,
    convnext_tiny), so that ResnetBlock3D or eval name none."""
    return {name: rf"^(?:{pattern})(?:[\d_\-]|v\d|$)" for name, pattern in _fam(**patterns).items()}


YOLO = _fam(
    yolov3=r"yolo[-_]?v3", yolov4=r"yolo[-_]?v4", yolov5=r"yolo[-_]?v5", yolov6=r"yolo[-_]?v6", yolov7=r"yolo[-_]?v7",
    yolov8=r"yolo[-_]?v8", yolov9=r"yolo[-_]?v9", yolov10=r"yolo[-_]?v10", yolov11=r"yolo[-_]?v?11",
    yolox=r"yolox", rtmdet=r"rtmdet", ppyoloe=r"ppyoloe", rt_detr=r"rt[-_]?detr",
)  # fmt: skip
LLM = _fam(
    llama=r"llama(?!cpp)", qwen=r"qwen", deepseek=r"deepseek", glm=r"chatglm|\bglm[-_]?\d", mixtral=r"mixtral",
    mistral=r"mistral", gemma=r"gemma", phi=r"^phi[-_]?\d|microsoft/phi", falcon=r"falcon", baichuan=r"baichuan",
    internlm=r"internlm", pythia=r"pythia|gpt[-_]?neox", olmo=r"olmo", telechat=r"telechat", gpt2=r"^gpt2|gpt-2",
)  # fmt: skip
IMAGE = _whole(
    resnet=r"(wide_)?resne(t|xt)", vit=r"vit|visiontransformer|deit", swin=r"swin(transformer)?",
    convnext=r"convnext", efficientnet=r"efficientnet|^tf_efficientnet", mobilenet=r"mobilenet(v\d)?",
    regnet=r"regnet", densenet=r"densenet", inception=r"inception|^googlenet", vgg=r"vgg", xception=r"xception",
    ghostnet=r"ghostnet", repvgg=r"repvgg", res2net=r"res2net", resnest=r"resnest", senet=r"se(net|resnet|resnext)",
    shufflenet=r"shufflenet", squeezenet=r"squeezenet", mixnet=r"mixnet", mnasnet=r"mnasnet", pit=r"pit",
    poolformer=r"poolformer", pvt=r"pvt", rexnet=r"rexnet", volo=r"volo", xcit=r"xcit", hrnet=r"hrnet",
    mobilevit=r"mobilevit", dpn=r"dpn", edgenext=r"edgenext", cait=r"cait", coat=r"coat", convit=r"convit",
    crossvit=r"crossvit", mlp_mixer=r"mixer|mlpmixer", visformer=r"visformer", beit=r"beit", eva=r"eva",
    maxvit=r"maxvit", levit=r"levit", nfnet=r"nfnet|^dm_nfnet", efficientformer=r"efficientformer",
    fastvit=r"fastvit", tinyvit=r"tiny_?vit", coatnet=r"coatnet", davit=r"davit", hiera=r"hiera",
    convmixer=r"convmixer", cspnet=r"cspresne|^cspdarknet", dla=r"dla", hardcorenas=r"hardcorenas",
)  # fmt: skip
DIFFUSION = _fam(
    stable_diffusion=r"stablediffusion(pipeline|img2img|inpaint)|stable[-_]diffusion[-_]v?[12]|unet2dcondition",
    stable_diffusion_xl=r"stablediffusionxl|sdxl|stable[-_]diffusion[-_]xl", stable_diffusion_3=r"stablediffusion3|sd3",
    flux=r"^flux", animatediff=r"animatediff|motionmodule|motion_module", sparsectrl=r"sparsectrl|sparse_?controlnet",
    controlnet=r"controlnet", pixart=r"pixart", cogvideox=r"cogvideo", hunyuan=r"hunyuan", wan=r"^wan(pipeline|2)",
    dit=r"^dit(transformer|pipeline)?$|^dit[-_]", kandinsky=r"kandinsky", latte=r"^latte",
)  # fmt: skip

PORTS: tuple[Port, ...] = (
    Port(
        "mindone",
        "diffusers",
        ("diffusers",),
        DIFFUSION,
        None,
        "mindone.diffusers mirrors diffusers' pipelines and models (github.com/mindspore-lab/mindone, "
        "mindone/diffusers/pipelines: animatediff with SparseCtrl, controlnet, stable_diffusion_xl, flux, wan, "
        "cogvideo and the rest, read 2026-12-03)",
        own_evidence=False,
    ),
    Port(
        "mindyolo",
        "YOLO detectors (ultralytics, yolov5/yolov7, mmyolo)",
        ("ultralytics", "mmyolo"),
        YOLO,
        frozenset({"yolov3", "yolov4", "yolov5", "yolov7", "yolov8", "yolov9", "yolov10", "yolov11", "yolox"}),
        "github.com/mindspore-lab/mindyolo configs/ and mindyolo/models/ (commit 67288e5, 2026-04-20)",
    ),
    Port(
        "MindSpore Transformers",
        "LLaMA-family LLMs",
        (),
        LLM,
        frozenset({"llama", "qwen", "deepseek", "glm", "mixtral", "telechat"}),
        "github.com/mindspore-lab/mindformers mindformers/models, configs/ and research/ (commit fd4deebc1, "
        "2025-07-24): llama, qwen2/2.5/3/3-moe, deepseek3, glm4, mixtral, telechat2",
        paths=False,
    ),
    Port(
        "mindcv",
        "timm / torchvision image models",
        ("timm",),
        IMAGE,
        frozenset(
            """resnet vit swin convnext efficientnet mobilenet regnet densenet inception vgg xception ghostnet
            repvgg res2net resnest senet shufflenet squeezenet mixnet mnasnet pit poolformer pvt rexnet volo xcit
            hrnet mobilevit dpn edgenext cait coat convit crossvit visformer""".split()
        )
        | {"mlp mixer"},
        "github.com/mindspore-lab/mindcv mindcv/models (commit 51b0636, 2025-07-24)",
        paths=False,
    ),
    Port(
        "mindnlp",
        "transformers",
        ("transformers",),
        LLM,
        None,
        "MindNLP README (commit 7dd3e355, 2026-03-08): HF transformers run on MindSpore through its torch "
        "bridge ('all model architectures'; diffusers: Stable Diffusion, SDXL, ControlNet)",
        own_evidence=False,
    ),
)


def offers(tokens: dict[str, tuple[str, str]], imports: dict[str, set[str]]) -> list[PortOffer]:
    """The ports to offer. `tokens`: file -> its lower-case evidence, one token a line: (the classes it
    defines, the names it imports and its short strings; its folder and file names); `imports`: file -> its
    import roots."""
    out = []
    for port in PORTS:
        users = {rel for rel, roots in imports.items() if roots & set(port.roots)}
        found: dict[str, set[str]] = {}
        for family, pattern in port.families.items():
            rx = _compiled(pattern)
            for rel, (code, path) in tokens.items():
                if (port.own_evidence or rel in users) and (rx.search(code) or port.paths and rx.search(path)):
                    found.setdefault(family, set()).add(rel)
        if not users and not found:
            continue
        families = sorted(found)
        covered = [f for f in families if port.has is None or f in port.has]
        missing = [f for f in families if port.has is not None and f not in port.has]
        if not users and not covered:
            continue  # the project implements only families the port lacks: nothing to adapt
        files = users | {rel for rels in found.values() for rel in rels}
        out.append(
            PortOffer(port=port.port, upstream=port.upstream, covered=covered, missing=missing, files=len(files))
        )
    return out


_PATTERNS: dict[str, re.Pattern[str]] = {}


def _compiled(pattern: str) -> re.Pattern[str]:
    """A family pattern over one-token lines: ^ and $ are a token's ends."""
    if pattern not in _PATTERNS:
        _PATTERNS[pattern] = re.compile(pattern, re.M)
    return _PATTERNS[pattern]


def named_families(evidence: list[str]) -> list[str]:
    """The model families a project names (its classes, the models it imports, its model ids and config
    names): a config-driven model (one GPT class, twenty families) is converted and checked family by
    family, and a hub model it fine-tunes (LlamaForCausalLM) is one family to check."""
    text = "\n".join(evidence)
    found = set()
    for families in (LLM, IMAGE, YOLO, DIFFUSION):
        found.update(f for f, pattern in families.items() if _compiled(pattern).search(text))
    return sorted(found)


def source_of(port: str) -> str:
    return next((p.source for p in PORTS if p.port == port), "")
