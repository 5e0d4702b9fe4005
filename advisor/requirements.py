"""The team's requirements: the user-facing input contract, and the one loader that turns a file into
a validated `Requirements` or a single clear `UsageError` line (file, field path, what is expected).

Field names are the contract users write their files against; do not rename them. Input models forbid unknown keys and are
strict about types, so a typo or a quoted number is reported rather than silently guessed.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
from pathlib import Path
from typing import Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from advisor.errors import UsageError
from advisor.safe_yaml import clip, load_yaml, read_bounded

Skill = Literal["none", "basic", "proficient", "expert"]
Level = Literal["low", "medium", "high"]
HardwareKind = Literal["nvidia", "ascend", "cpu"]
DeploymentTarget = Literal["nvidia-server", "ascend-server", "cpu-server", "mobile", "edge-ascend"]
CRITERIA: tuple[str, ...] = (
    "performance",
    "cost",
    "ecosystem",
    "team",
    "migration",
    "deployment",
    "debugging",
    "compliance",
)
SKILL_LEVELS: tuple[str, ...] = ("none", "basic", "proficient", "expert")
MAX_FILE_BYTES = 1_000_000


@functools.lru_cache(maxsize=1)
def _attribute_docs() -> dict[str, dict[str, str]]:
    """class name -> field -> the docstring written under it, from one parse of this module's source.
    (pydantic's `use_attribute_docstrings` does the same per class, walking the import's frames and
    re-reading the file each time: ~0.1 CPU-s of every command that reads a requirements file.)"""
    try:
        tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return {}
    docs: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            docs[node.name] = {
                field.target.id: inspect.cleandoc(doc.value.value)
                for field, doc in zip(node.body, node.body[1:])
                if isinstance(field, ast.AnnAssign)
                and isinstance(field.target, ast.Name)
                and isinstance(doc, ast.Expr)
                and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)
            }
    return docs


class _Input(BaseModel):
    # Each field's docstring becomes its description in the published JSON Schema (an editor shows it on
    # hover): set on the fields as each class is made, before its schema is built (deferred to first use).
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, defer_build=True)

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        own = _attribute_docs().get(cls.__name__, {})
        for name, info in cls.model_fields.items():
            if info.description is None and name in own:
                info.description = own[name]


class Team(_Input):
    pytorch: Skill = "none"
    """PyTorch skill of the team as a whole."""
    mindspore: Skill = "none"
    """MindSpore skill of the team as a whole."""
    size: int = Field(4, ge=1, le=10_000)
    """Engineers on the project."""


class Fleet(_Input):
    kind: str = Field(min_length=1, max_length=100)
    """A knowledge-base accelerator id or name."""
    count: int = Field(ge=1, le=100_000)
    """How many of them the team has."""


class Hardware(_Input):
    available: list[HardwareKind] = Field(min_length=1)
    """What the team can train on today."""
    training_target: Literal["nvidia", "ascend", "cpu", "undecided"] = "undecided"
    """Where production training runs."""
    accelerator: Optional[str] = Field(None, min_length=1)
    """A knowledge-base accelerator id or name (e.g. 'Ascend 910B', 'A100 80GB')."""
    devices: int = Field(1, ge=1, le=100_000)
    """Accelerators used for training."""
    network: Optional[Literal["roce-ib", "ethernet"]] = None
    """Link between hosts when the devices span several (unknown: the scaling range covers both)."""
    accelerators: Optional[list[Fleet]] = Field(None, min_length=1, max_length=16)
    """Several fleets, each {kind, count} (e.g. 8 x H100 and 16 x Ascend 910B); the single
    `accelerator`/`devices` form stays valid and, when both are given, must be one of the list."""

    @model_validator(mode="after")
    def _single_is_in_fleets(self) -> "Hardware":
        if self.accelerators and self.accelerator is not None:
            kinds = [f.kind.lower() for f in self.accelerators]
            if self.accelerator.lower() not in kinds:
                raise ValueError(
                    f"hardware.accelerator {self.accelerator!r} is not one of hardware.accelerators "
                    f"({', '.join(f.kind for f in self.accelerators)})"
                )
        return self


class Deployment(_Input):
    targets: list[DeploymentTarget] = Field(min_length=1, max_length=64)  # 50,000 took 15-28 s and a 17 MB report
    """Everywhere the trained model must run (at least one)."""


class ModelSpec(_Input):
    family: Literal["cnn", "transformer", "rnn", "gnn", "other"] = "other"
    """Kind of network: it sets the memory, precision and optimizer defaults and the routes that apply."""
    architecture: Optional[Literal["decoder", "encoder"]] = None
    """transformer: decoder (generates tokens; the default) or encoder (BERT-like, scores whole sequences)."""
    parameters_millions: float = Field(1.0, gt=0, le=10_000_000)
    """Model size in millions of parameters (ResNet-50: 25.6; a mixture of experts: every expert)."""
    source: Literal["new", "pytorch-code", "mindspore-code", "other-framework"] = "new"
    """Where the code comes from: mindspore-code is existing MindSpore code (no porting to stay)."""
    custom_cuda_ops: bool = False
    """The model uses hand-written CUDA operators (each must be rewritten for Ascend; see custom_cuda_kernels)."""
    dynamic_control_flow: bool = False
    """Python control flow that depends on the data (loops, branches on tensors): harder in graph mode."""
    code_path: Optional[str] = Field(None, min_length=1)
    """PyTorch code to scan for migration effort (relative to the requirements file)."""
    custom_cuda_kernels: Optional[int] = Field(None, ge=0, le=100_000)
    """How many custom CUDA kernels the model uses (custom_cuda_ops: true alone counts one)."""
    dynamic_shapes: bool = False
    """Input shapes change from batch to batch (variable sequence lengths, image sizes)."""
    precision: Optional[Literal["fp32", "mixed", "bf16"]] = None
    """Training precision (default per family: transformer mixed, others fp32)."""
    optimizer: Optional[Literal["adam", "sgd-momentum", "sgd"]] = None
    """Optimizer (default per family: cnn sgd-momentum, others adam)."""
    activation_mb_per_sample: Optional[float] = Field(None, gt=0, le=1_000_000)
    """Activation memory per training sample in MB (default per family; transformers: Korthikanti et al.)."""
    optimizer_states: Optional[Literal["fp32", "low-precision"]] = None
    """fp32 (default): fp32 master weights and Adam moments; low-precision: bf16 states, no master copy."""
    fine_tune: Optional[Literal["full", "lora", "qlora"]] = None
    """Fine-tuning of released weights (absent: training from scratch or continued pretraining of every
    parameter): full trains every parameter; lora trains adapters (`trainable_share`) on a frozen base;
    qlora does the same on a base quantised to 4 bits (`base_weights_precision: int4`)."""
    trainable_share: Optional[float] = Field(None, gt=0, le=1)
    """Share of the parameters trained under fine_tune: lora or qlora (default 0.01, an assumption)."""
    base_weights_precision: Optional[Literal["int4", "int8", "bf16", "fp16"]] = None
    """Width of the frozen base weights under lora/qlora (default: bf16 for lora, int4 for qlora)."""
    from_checkpoint: bool = False
    """Training starts from released weights (continued pretraining; implied by fine_tune): there is no
    prototype phase to run in another framework."""
    experts: Optional[int] = Field(None, ge=2, le=100_000)
    """Mixture of experts: routed experts per MoE layer (absent: a dense model)."""
    experts_per_token: Optional[int] = Field(None, ge=1, le=1_000)
    """Mixture of experts: experts each token is routed to (top-k)."""
    active_parameters_millions: Optional[float] = Field(None, gt=0, le=10_000_000)
    """Mixture of experts: parameters one token passes through (FLOPs follow these; memory holds
    parameters_millions, every expert)."""
    layers: Optional[int] = Field(None, ge=1, le=10_000)
    """Transformer layers (absent: derived from parameters_millions by published shapes)."""
    hidden_size: Optional[int] = Field(None, ge=1, le=1_000_000)
    """Transformer hidden width (absent: derived from parameters_millions by published shapes)."""
    attention_heads: Optional[int] = Field(None, ge=1, le=10_000)
    """Transformer attention heads, dividing hidden_size (absent: the nearest published shape's)."""
    sequence_length: Optional[int] = Field(None, ge=1, le=10_000_000)
    """Training sequence length in tokens (absent: the nearest published shape's)."""
    vocabulary: Optional[int] = Field(None, ge=1, le=10_000_000)
    """Tokenizer vocabulary size (absent: the nearest published shape's)."""
    recompute: Optional[Literal["none", "selective", "full"]] = None
    """Activation recomputation (absent: the least that fits, said so)."""
    upstream: Optional[Literal["transformers", "diffusers", "timm", "ultralytics", "megatron"]] = None
    """The PyTorch library the model builds on (its models and checkpoints): a maintained MindSpore port
    of it (diffusers -> mindone, ultralytics -> mindyolo, timm -> mindcv, transformers -> MindNLP,
    LLMs -> MindSpore Transformers) is adapted instead of re-implementing the model."""
    flash_attention: bool = True
    """Transformers: fused attention that keeps no s x s scores (FlashAttention on NVIDIA, the fused
    FlashAttentionScore operator on Ascend; true by default, an assumption)."""

    @model_validator(mode="after")
    def _shape_is_a_transformers(self) -> "ModelSpec":
        shape = ("layers", "hidden_size", "attention_heads", "sequence_length", "vocabulary")
        given = [f for f in shape if getattr(self, f) is not None]
        if given and self.family != "transformer":
            raise ValueError(f"model.{given[0]}: a transformer's shape (model.family is {self.family!r})")
        if self.hidden_size and self.attention_heads and self.hidden_size % self.attention_heads:
            raise ValueError(
                f"model.hidden_size: {self.hidden_size} must divide by model.attention_heads ({self.attention_heads})"
            )
        if self.trainable_share is not None and self.fine_tune not in ("lora", "qlora"):
            raise ValueError(
                "model.trainable_share: only with fine_tune: lora or qlora (full fine-tuning trains every parameter)"
            )
        if self.base_weights_precision is not None and self.fine_tune not in ("lora", "qlora"):
            raise ValueError("model.base_weights_precision: only with fine_tune: lora or qlora (a frozen base)")
        moe = ("experts", "experts_per_token", "active_parameters_millions")
        given_moe = [f for f in moe if getattr(self, f) is not None]
        if given_moe and len(given_moe) < len(moe):
            missing = next(f for f in moe if getattr(self, f) is None)
            raise ValueError(
                f"model.{missing}: a mixture of experts needs experts, experts_per_token and active_parameters_millions"
            )
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError(
                f"model.experts_per_token: {self.experts_per_token} is more than model.experts ({self.experts})"
            )
        if self.active_parameters_millions is not None and self.active_parameters_millions > self.parameters_millions:
            raise ValueError(
                f"model.active_parameters_millions: {self.active_parameters_millions:g} is more than "
                f"model.parameters_millions ({self.parameters_millions:g}; a token passes through part of the model)"
            )
        return self

    @property
    def is_moe(self) -> bool:
        return self.experts is not None

    @property
    def starts_from_weights(self) -> bool:
        """Training starts from released weights (fine-tuning or continued pretraining)."""
        return self.from_checkpoint or self.fine_tune is not None

    @property
    def kernel_count(self) -> int:
        if self.custom_cuda_kernels is not None:
            return self.custom_cuda_kernels
        return 1 if self.custom_cuda_ops else 0


class Needs(_Input):
    huggingface: Literal["none", "nice", "essential"] = "none"
    """How much the team depends on the Hugging Face ecosystem (its hub's models, datasets and libraries)."""
    distributed_training: bool = False
    """Training spans several devices (data or model parallel); a scaling probe result is used only then."""
    debugging_intensity: Level = "medium"
    """How much interactive debugging the work needs (high favours eager execution)."""
    throughput_priority: Level = "medium"
    """How much training and serving speed matter (raises the performance weight)."""
    domestic_substitution: Literal["none", "preferred", "required"] = "none"
    """Both domestic hardware and a domestic framework (kept: it sets the two below when they are absent)."""
    domestic_hardware: Optional[Literal["none", "preferred", "required"]] = None
    """Domestic training/deployment hardware (Ascend); torch_npu on Ascend satisfies it."""
    domestic_framework: Optional[Literal["none", "preferred", "required"]] = None
    """A domestic framework (MindSpore)."""
    edge_cloud: bool = False
    """Train in the cloud, infer on devices."""
    domestic_scope: list[Literal["training", "deployment"]] = Field(
        default_factory=lambda: ["training", "deployment"], min_length=1, max_length=2
    )
    """The stages a domestic mandate applies to (default both): [training] for a team that must train on
    domestic hardware but publishes weights that others serve anywhere."""

    @field_validator("domestic_scope", mode="before")
    @classmethod
    def _empty_scope_is_unstated(cls, value: Any) -> Any:
        # an empty list states nothing (a form's untouched multi-select sends one): the default, both stages
        return ["training", "deployment"] if value == [] else value

    @property
    def hardware_mandate(self) -> str:
        return self.domestic_hardware or self.domestic_substitution

    @property
    def framework_mandate(self) -> str:
        return self.domestic_framework or self.domestic_substitution


class Constraints(_Input):
    deadline_weeks: Optional[float] = Field(None, gt=0, le=1000)
    """Weeks until the model must be in production (migration hours are judged against it)."""
    budget_usd: Optional[float] = Field(None, ge=0)
    """Budget in US dollars for what `budget_scope` names (absent: costs are shown, not judged)."""
    budget_scope: Literal["compute", "engineering", "total"] = "compute"
    """What `budget_usd` pays for: compute (compute and energy; the default), engineering (adds migration
    and engineering hours) or total (adds the team's salaries)."""
    compute_pricing: Literal["cloud", "owned"] = "cloud"
    """cloud: the hourly price includes energy; owned: the team's own hardware (amortised capital, or
    nothing when `owned_capital: sunk`, plus energy at a typical draw)."""
    owned_capital: Literal["amortised", "sunk"] = "amortised"
    """With compute_pricing: owned: amortised charges the hardware's price over `amortisation_years`;
    sunk: the hardware is already paid for, only energy is charged."""
    amortisation_years: Optional[float] = Field(None, gt=0, le=30)
    """Years over which owned hardware is written off (absent: the knowledge base's assumption)."""


class Workload(_Input):
    model: Literal["lenet", "resnet18", "resnet50", "transformer", "custom"]
    """The workload's network: a probed one (lenet, resnet18, resnet50), transformer, or custom (give
    gflops_per_sample)."""
    kind: Literal["training", "inference"] = "training"
    """inference: an inference-only product (no training projection, migration of training code or
    training pitfalls; inference accelerators are valid targets)."""
    gflops_per_sample: Optional[float] = Field(None, gt=0)
    """Training GFLOPs per sample (forward + backward); needed for `custom`."""
    dataset_samples: Optional[int] = Field(None, ge=1)
    """Samples per epoch; a transformer workload may give `tokens` instead."""
    tokens: Optional[float] = Field(None, gt=0, le=1e16)
    """Training tokens in all (transformer): replaces dataset_samples x epochs."""
    epochs: float = Field(1.0, gt=0, le=100_000)
    """Passes over dataset_samples."""
    batch_size: int = Field(128, ge=1)
    """Samples per optimizer step across all devices."""
    micro_batch: Optional[int] = Field(None, ge=1, le=100_000)
    """Sequences per device per step (transformer; default 1)."""
    global_batch: Optional[int] = Field(None, ge=1, le=100_000_000)
    """Sequences per optimizer step across all devices (transformer; default batch_size)."""

    @model_validator(mode="after")
    def _custom_needs_flops(self) -> "Workload":
        if self.model == "custom" and self.gflops_per_sample is None:
            raise ValueError("model 'custom' needs gflops_per_sample")
        if self.kind == "training" and self.dataset_samples is None and self.tokens is None:
            raise ValueError("workload: a training workload needs dataset_samples (or tokens for a transformer)")
        if self.tokens is not None and self.model not in ("transformer", "custom"):
            raise ValueError(f"workload.tokens: counts a transformer's text (model {self.model!r} counts samples)")
        return self

    @property
    def samples(self) -> int:
        """Samples per epoch (0 when only tokens are given: the transformer path counts tokens)."""
        return self.dataset_samples or 0


class Serving(_Input):
    """An LLM product's serving load and its latency targets (service-level objective)."""

    requests_per_second: Optional[float] = Field(None, gt=0, le=1e7)
    """Requests arriving per second at peak."""
    concurrency: Optional[int] = Field(None, ge=1, le=10_000_000)
    """Requests in flight at once (absent: derived from requests_per_second and the latency)."""
    prompt_tokens: int = Field(1024, ge=1, le=10_000_000)
    """Input tokens per request."""
    output_tokens: int = Field(256, ge=1, le=10_000_000)
    """Generated tokens per request."""
    ttft_ms: Optional[float] = Field(None, gt=0, le=3_600_000)
    """Target time to first token (milliseconds)."""
    tpot_ms: Optional[float] = Field(None, gt=0, le=600_000)
    """Target time per output token after the first (milliseconds)."""
    quantization: Literal["none", "int8", "w8a8", "w4a16", "fp8"] = "none"
    """Weight (and activation) quantisation of the served model: none serves 16-bit weights."""

    @model_validator(mode="after")
    def _load_is_stated(self) -> "Serving":
        if self.requests_per_second is None and self.concurrency is None:
            raise ValueError("serving: give requests_per_second or concurrency (the load to serve)")
        return self


class Weights(_Input):
    """Optional overrides of criterion weights (>= 0); the rest keep their defaults, all renormalised."""

    performance: Optional[float] = Field(None, ge=0)
    """Weight of training and serving speed."""
    cost: Optional[float] = Field(None, ge=0)
    """Weight of compute, energy and engineering cost."""
    ecosystem: Optional[float] = Field(None, ge=0)
    """Weight of libraries, models and community around the framework."""
    team: Optional[float] = Field(None, ge=0)
    """Weight of the team's existing skills."""
    migration: Optional[float] = Field(None, ge=0)
    """Weight of the effort and risk of porting code."""
    deployment: Optional[float] = Field(None, ge=0)
    """Weight of fit with the deployment targets."""
    debugging: Optional[float] = Field(None, ge=0)
    """Weight of ease of debugging."""
    compliance: Optional[float] = Field(None, ge=0)
    """Weight of domestic hardware and framework mandates."""

    def given(self) -> dict[str, float]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Requirements(_Input):
    """A team's situation and needs, as written in a requirements YAML file."""

    name: str = Field(min_length=1, max_length=200)
    """The project's name, shown in the report's title."""
    stage: Literal["research", "prototype", "production"] = "prototype"
    """Where the project is now: research, prototype or production."""
    team: Team = Team()
    """The team's framework skills and size."""
    hardware: Hardware
    """The accelerators the team has and where production training runs."""
    deployment: Deployment
    """Where the model is served."""
    model: ModelSpec = ModelSpec()
    """The model: its family, size, shape, origin and fine-tuning."""
    needs: Needs = Needs()
    """What the work needs: the hub, distribution, debugging, speed, domestic mandates."""
    constraints: Constraints = Constraints()
    """Deadline and budget."""
    workload: Optional[Workload] = None
    """The training (or inference) workload to project time and cost for (absent: none projected)."""
    serving: Optional[Serving] = None
    """An LLM product's serving load and targets (with workload.kind: inference, or beside training)."""
    weights: Optional[Weights] = None
    """Overrides of the criteria's weights (the rest keep their defaults, all renormalised)."""

    @model_validator(mode="after")
    def _weights_not_all_zero(self) -> "Requirements":
        given = self.weights.given() if self.weights else {}
        if given and len(given) == len(CRITERIA) and sum(given.values()) <= 0:
            raise ValueError("weights: at least one weight must be above 0")
        return self

    def as_conditions(self) -> dict[str, Any]:
        """The plain dict that knowledge-base conditions (`Pitfall.applies`) are evaluated over."""
        return self.model_dump(mode="json")


# --- loading -------------------------------------------------------------------------------------


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _expectation(err: dict[str, Any]) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return f"unknown key (got {err.get('input')!r}); check the spelling against the documented fields"
    if kind == "literal_error":
        return f"expected one of {ctx.get('expected')} (got {err.get('input')!r})"
    if kind == "too_short":
        n = ctx.get("min_length", 1)
        return f"expected at least {n} item{'s' if n != 1 else ''} (got {err.get('input')!r})"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"])).removeprefix("Value error, ")
    msg = err["msg"].replace("Input should be", "expected")
    if kind.endswith("_type") or kind.endswith("_parsing"):
        return f"{msg} (got {type(err.get('input')).__name__} {err.get('input')!r})"
    return f"{msg} (got {err.get('input')!r})"


# Every problem of a file is listed on its one line, up to this many (a file with more is not a typo).
MAX_LISTED_PROBLEMS = 10


def field_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """(field, what is expected) for every error pydantic found, in its order."""
    # A model-level validator reports an empty location; its message already names the field.
    return [(_loc(tuple(e["loc"])), clip(_expectation(e), 200)) for e in exc.errors(include_url=False)]


def validation_message(path: str, exc: ValidationError) -> str:
    """One line listing every problem ('; ' between them), each value quoted at most 80 characters."""
    errors = field_problems(exc)
    parts = [f"{field}: {what}" for field, what in errors[:MAX_LISTED_PROBLEMS]]
    text = f"{path}: " + "; ".join(parts)
    if len(errors) > MAX_LISTED_PROBLEMS:
        text += f" (and {len(errors) - MAX_LISTED_PROBLEMS} more problems)"
    return text


def parse_requirements(data: Any, path: str = "<requirements>") -> Requirements:
    """Validate an already-parsed mapping (the TUI's form uses this); raises UsageError."""
    if data is None:
        raise UsageError(f"{path}: the file is empty: expected a YAML mapping with name, hardware, deployment, ...")
    if not isinstance(data, dict):
        raise UsageError(f"{path}: (top level): expected a YAML mapping of fields (got {type(data).__name__})")
    try:
        req = Requirements.model_validate(data)
    except ValidationError as exc:
        raise UsageError(validation_message(path, exc)) from None
    from advisor.limits import first_problem  # the one range table, for the CLI and the TUI's form alike

    found = first_problem(req.model_dump(mode="python"))
    if found:
        raise UsageError(f"{path}: {found}")
    return req


def read_requirements(path: str | os.PathLike) -> Any:
    """The parsed YAML of a requirements file, not yet validated (UsageError when it cannot be read)."""
    name = str(path)
    raw = read_bounded(path, MAX_FILE_BYTES, "a requirements YAML file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(f"{name}: byte {exc.start}: not valid UTF-8: expected a UTF-8 text file") from None
    if not text.strip():
        raise UsageError(f"{name}: the file is empty: expected a YAML mapping with name, hardware, deployment, ...")
    return load_yaml(text, name)


def load_requirements(path: str | os.PathLike) -> Requirements:
    """Read, parse and validate a requirements file. Every failure is one UsageError line."""
    return parse_requirements(read_requirements(path), str(path))


def resolve_code_path(requirements: Requirements, requirements_file: str | os.PathLike | None) -> Optional[Path]:
    """`model.code_path` is relative to the requirements file's folder."""
    if not requirements.model.code_path:
        return None
    # os.path.expanduser leaves `~nosuchuser` as written; realpath does not raise on a loop of links
    code = Path(os.path.expanduser(requirements.model.code_path))
    if not code.is_absolute() and requirements_file is not None:
        code = Path(os.path.realpath(requirements_file)).parent / code
    return code
