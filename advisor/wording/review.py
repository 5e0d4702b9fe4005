"""The review layer's words (advisor.review): the review document's first page, sign-off and
evidence notes, the risk register, the stack to install and the sensitivity over the knowledge base's
own figures, keyed by code like the decision model's findings and merged into the one catalogue
(advisor.wording.catalogue). Scores, totals and margins arrive already rounded by the review's one
rounding helper (advisor.review.document.points, pct), so every format reads the same figure; other
numbers are formatted here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from advisor.numbers import sig

Entry = Callable[[Any], str]


# --- the sensitivity over the knowledge base's figures (advisor.review.kb_sensitivity) -----------

_KB_UNITS = {
    "score": "/5",
    "usd": " USD",
    "images_per_second": " img/s",
    "mfu": " MFU (middle of its range)",
    "tokens_per_second_per_device": " tokens/s per device",
}

KB_SENSITIVITY: dict[str, Entry] = {
    "kbsens.ranges": lambda p: (
        f"ratings +-{p.rating:g} point (0-5), prices +-{p.price:.0%}, throughput and MFU references +-{p.reference:.0%}"
    ),
    # a figure by its reader's name (the first page) or by its knowledge-base id and field
    "kbsens.move": lambda p: (
        f"{p.name or f'{p.entry} {p.field}'} {p.before:g}{_KB_UNITS.get(p.field, '')} -> "
        f"{p.after:g}{_KB_UNITS.get(p.field, '')}"
    ),
    "kbsens.name.rating": lambda p: (
        f"the {p.framework} {p.aspect} rating" + (f" (as of {p.dated:%Y-%m})" if p.dated else "")
    ),
    "kbsens.name.price": lambda p: f"the {p.accelerator} price per device-hour" + (f" ({p.where})" if p.where else ""),
    "kbsens.name.mfu_reference": lambda p: f"the {p.system} {p.model} MFU reference on {p.devices} x {p.accelerator}",
    "kbsens.name.reference": lambda p: f"the {p.framework} {p.model} reference on {p.devices} x {p.accelerator}",
}


# --- the risk register (advisor.review.risks) ----------------------------------------------------

RISKS: dict[str, Entry] = {
    "risks.default_owner": lambda p: "ML engineer",
    "risks.minimum_slice": lambda p: f"minimum slice ({p.least} devices)",
    "risks.why.always": lambda p: "applies to every project on this workflow",
    "risks.why.accuracy": lambda p: f"measured by the accuracy probe ({p.data}): {p.line}",
    "risks.why.transformer": lambda p: f"measured by the transformer probe ({p.model}, on {p.host}): {p.line}",
    "risks.why.pipeline": lambda p: f"measured by the pipeline probe: {p.detail}",
    "risks.scan.found": lambda p: f"`advisor scan` found {p.count} place(s) ({p.kind}) in {p.path or 'the code'}",
    "risks.scan.fix": lambda p: "see `advisor scan` for each place",
}


# --- the stack to install (advisor.review.stack) ------------------------------------------------


STACK_FETCHED: dict[str, Entry] = {  # how a package pip does not install is fetched (its pin's package)
    "stack.fetch.cann": lambda p: (
        "the CANN toolkit .run from the Ascend download page, for the host's architecture (`uname -m`)"
    ),
    "stack.fetch.mindspore_lite": lambda p: (
        "MindSpore Lite's download package (cloud-side for servers, device-side for the edge); it carries converter_lite"
    ),
    "stack.fetch.mindie": lambda p: "the MindIE image or package from the Ascend download page",
    "stack.fetch.mindspeed_llm": lambda p: "git clone of the MindSpeed-LLM release tag",
    "stack.fetch.mindspeed_mm": lambda p: "git clone of the MindSpeed-MM release tag",
    "stack.fetch.mindspeed": lambda p: "git clone of the MindSpeed release tag",
    "stack.fetch.megatron_core": lambda p: "the release tag of NVIDIA's Megatron-LM the suite names",
    "stack.fetch.edge_cann": lambda p: (
        "the CANN toolkit .run for the edge board (aarch64), installed on the board; convert the model for it"
    ),
}

STACK: dict[str, Entry] = {
    # the Python line
    "stack.python.same_env": lambda p: "the production environment's, so code and checkpoints move unchanged",
    "stack.python.newest": lambda p: "newest chosen",
    "stack.python.listed": lambda p: f"listed for this release: {', '.join(p.versions)} ({p.why})",
    "stack.python.not_stated": lambda p: "not stated",
    "stack.python.no_range": lambda p: "no Python range in the knowledge base for this stack",
    "stack.python.only": lambda p: f"the only Python the vendor lists ({p.listed})",
    "stack.python.every_vendor": lambda p: (
        f"vendor range {p.listed}; {p.line}: listed by every vendor matrix here, not the newest"
    ),
    "stack.python.newest_locked": lambda p: f"vendor range {p.listed}; the newest not above {p.newest}",
    # NumPy
    "stack.numpy.no_row": lambda p: "not in the knowledge base",
    "stack.numpy.no_row_note": lambda p: f"no PyTorch row at or below {p.torch}",
    "stack.numpy.either": lambda p: "1.x or 2.x",
    "stack.numpy.from_row": lambda p: f"from the PyTorch {p.version} row",
    "stack.numpy.same_row": lambda p: "from the same row",
    "stack.numpy.not_stated": lambda p: "not stated",
    "stack.numpy.mindspore": lambda p: (
        "NumPy 2 breaks MindSpore's PyNative mode (`advisor kb show numpy-2-breaks-mindspore`)"
    ),
    "stack.numpy.production": lambda p: "the production environment's (MindSpore needs NumPy below 2)",
    # the Ascend driver and toolkit
    "stack.hdk.name": lambda p: "Ascend driver + firmware (HDK)",
    "stack.hdk.version": lambda p: f"the release paired with CANN {p.cann}",
    "stack.hdk.note": lambda p: (
        "take the HDK paired with this CANN in its release notes; install it first and check `npu-smi info` "
        "(the field report 'Ascend 910 and MindSpore in practice' §3.2)"
    ),
    "stack.cann.name": lambda p: "CANN toolkit",
    "stack.cann.mindspore": lambda p: "the CANN line the vendor pairs with this MindSpore release",
    "stack.cann.torch_npu": lambda p: "the CANN line this torch_npu release pairs with",
    "stack.cann.differs": lambda p: (
        f"CANN {p.version} here, {p.other} for {p.title.split(':')[0].lower()}: one CANN per "
        "environment, so separate hosts or containers, on a driver (HDK) both list"
    ),
    # the frameworks' own stacks (a path without a route)
    "stack.none.mindspore": lambda p: (
        f"the knowledge base lists no MindSpore release for {p.device} with a known Python range"
    ),
    "stack.none.torch_npu": lambda p: (
        "the knowledge base lists no torch_npu release with a CANN pairing and a Python range"
    ),
    "stack.none.pytorch": lambda p: (
        f"the knowledge base lists no PyTorch release for {p.device} with a known Python range"
    ),
    "stack.torch_npu.torch": lambda p: "the PyTorch version this torch_npu release is built for",
    "stack.torch_npu.name": lambda p: "torch_npu adapter",
    "stack.cuda.name": lambda p: "CUDA runtime",
    "stack.cuda.version": lambda p: f"a CUDA line listed for PyTorch {p.version}",
    "stack.cuda.note": lambda p: (
        "the wheel carries its CUDA runtime; the knowledge base does not pin the line: "
        "read it from the release compatibility matrix (source)"
    ),
    "stack.driver.name": lambda p: "NVIDIA driver",
    "stack.driver.any_line": lambda p: "the minimum for that CUDA line or newer",
    "stack.driver.not_pinned": lambda p: "not pinned in the knowledge base",
    "stack.driver.for_cuda": lambda p: f"the minimum for CUDA {p.cuda} or newer",
    "stack.driver.table": lambda p: (
        "not pinned in the knowledge base: NVIDIA's CUDA compatibility table gives the minimum"
    ),
    "stack.newer_unchecked": lambda p: (
        "newer rows in the knowledge base lack a vendor-checked Python range: "
        + ", ".join(f"{version} ({confidence})" for version, confidence in p.rows)
    ),
    # a route's pins
    "stack.pin.unconfirmed": lambda p: "not confirmed by a vendor table" + (f": {p.note}" if p.note else ""),
    "stack.pin.beside_torch": lambda p: "pinned beside torch: HuggingFace is essential (needs.huggingface)",
    "stack.pin.other_torch": lambda p: (
        f"; the HuggingFace table pairs it with another torch, not checked against {p.torch}"
    ),
    "stack.newer_releases": lambda p: (
        f"newer {p.package} releases: {', '.join(p.versions)}; the route's table pins {p.version}"
        + (f" ({p.note})" if p.note else "")
    ),
    # the install lines
    "stack.install.conda": lambda p: f"conda create -n {p.env} python={p.python} -y && conda activate {p.env}",
    "stack.install.venv": lambda p: f"python{p.python} -m venv .venv && . .venv/bin/activate",
    "stack.install.pip": lambda p: "pip install " + " ".join(f'"{r}"' for r in p.reqs),
    "stack.install.fetched": lambda p: (
        f"# {p.name} {p.version}: {p.how or 'no exact version to pin: ' + (p.note or 'see the source')}"
    ),
    # the verify lines
    "stack.verify.npu_smi": lambda p: "npu-smi info    # every card listed, health OK, no driver/firmware mismatch",
    "stack.verify.set_env": lambda p: (
        "source /usr/local/Ascend/ascend-toolkit/set_env.sh    # CANN environment (put it in ~/.bashrc)"
    ),
    "stack.verify.nvidia_smi": lambda p: "nvidia-smi",
    "stack.verify.mindspore_check": lambda p: (
        'python -c "import mindspore; mindspore.run_check()"    # prints the version and runs one operator'
    ),
    "stack.verify.numpy_below_2": lambda p: 'python -c "import numpy; print(numpy.__version__)"    # must be below 2',
    "stack.verify.advisor_check_all": lambda p: (
        "advisor check    # host, drivers, frameworks and versions in one report"
    ),
    "stack.verify.advisor_check": lambda p: "advisor check",
    "stack.verify.torch_npu_count": lambda p: (
        'python -c "import torch, torch_npu; print(torch.__version__, torch_npu.__version__, torch.npu.is_available(), '
        'torch.npu.device_count())"'
    ),
    "stack.verify.nvidia_smi_gpus": lambda p: "nvidia-smi    # driver loaded, every GPU listed",
    "stack.verify.torch_cuda_count": lambda p: (
        'python -c "import torch; print(torch.__version__, torch.version.cuda, torch.cuda.is_available(), '
        'torch.cuda.device_count())"'
    ),
    "stack.verify.nvidia_smi_pin": lambda p: (
        "nvidia-smi    # driver loaded, every GPU listed, CUDA version at or above the pin"
    ),
    "stack.verify.uname": lambda p: (
        "uname -m    # aarch64 on Kunpeng hosts (Atlas 800T A2): the aarch64 CANN .run and wheels"
    ),
    "stack.verify.edge_npu_smi": lambda p: (
        "npu-smi info    # on the edge board: its Name (Ascend310B<n>) is the converter's --soc_version"
    ),
    "stack.verify.torch_npu": lambda p: (
        'python -c "import torch, torch_npu; print(torch.__version__, torch_npu.__version__, torch.npu.is_available())"'
    ),
    "stack.verify.torch_cuda": lambda p: (
        'python -c "import torch; print(torch.__version__, torch.cuda.is_available())"'
    ),
    "stack.verify.mindspore": lambda p: 'python -c "import mindspore; mindspore.run_check()"',
    "stack.verify.pip_show": lambda p: f"pip show {p.package}    # the pinned version installed",
    # the stacks' titles
    "stack.title.route": lambda p: (
        f"{p.stage}: {p.name}{f' for {p.target}' if p.target else ''} ({p.workflow}, {p.where})"
    ),
    "stack.title.production_training": lambda p: "Production training",
    "stack.title.training_stage": lambda p: "Training",
    "stack.title.training": lambda p: f"Training: {p.name} on {p.where} ({p.path})",
    "stack.title.serving": lambda p: f"Serving: {p.name} for {p.targets} ({p.workflow})",
    "stack.title.prototype_nvidia": lambda p: "Prototype: PyTorch on NVIDIA GPUs",
    "stack.title.prototype_cpu": lambda p: "Prototype: PyTorch on CPU",
}


# --- the review document (advisor.review.document) -----------------------------------------------

# the evidence classes in a reader's words
_CLASS = {
    "measured": "measured here",
    "vendor": "vendor",
    "derived": "derived",
    "secondary": "secondary",
    "blog": "blog/field report",
    "requirement": "requirement rule",
    "assumption": "assumption",
}
# what would refresh an old ecosystem rating, by its aspect
_REFRESH = {
    "debugging": "the framework's debugging guide and release notes since then, and an hour of its current "
    "release on the target (PyNative / eager, Graph-mode errors, the dump and compare tools)",
    "documentation": "the current documentation of the pinned release, read against the team's tasks",
    "community": "issue response times and activity on its GitHub / Gitee repositories over the last 12 months",
    "libraries": "a count today of the libraries the project needs that run on it (HuggingFace, timm, ...)",
    "model_hub": "a count today of the pretrained models the project needs on HuggingFace and the vendor's hubs",
}
_TARGET = {"nvidia": "NVIDIA GPUs", "ascend": "Ascend", "cpu": "CPU"}
_DEVICE = {"nvidia": ("NVIDIA GPU", "NVIDIA GPUs"), "ascend": ("Ascend device", "Ascend devices")}
_PATH = {  # how the framework reaches the training hardware
    "pytorch-cuda": "CUDA, first-party",
    "pytorch-npu": "via the torch_npu adapter",
    "pytorch-cpu": "CPU build",
    "mindspore": "first-party",
    "mindspore-cpu": "CPU build",
    "mindspore-gpu": "MindSpore's GPU build, not first-party (last released for 2.2.x)",
}
_SERVING_PATH = {"native": "first-party", "vendor-converter": "vendor converter", "export": "exported"}
_READING = {
    "hardware-and-framework": "hardware and framework",
    "hardware-only": "hardware only (torch_npu on Ascend meets it)",
}


def _probe_counts(p: Any) -> str:
    counts = [(p.usable, "usable"), (p.noisy, "noisy"), (p.unusable, "unusable")]
    counts += [(p.failed, "failed"), (p.cancelled, "cancelled")]
    return f"{p.total} probe runs: " + ", ".join(f"{n} {what}" for n, what in counts if n)


def _devices(p: Any) -> str:
    one, many = _DEVICE.get(p.target, (f"{p.target} device", f"{p.target} devices"))
    return f"{p.devices} {one if p.devices == 1 else many}"


REVIEW: dict[str, Entry] = {
    "review.class": lambda p: _CLASS[p.cls],
    "review.probes.none": lambda p: "no probe runs",
    "review.probes.counts": _probe_counts,
    # citations
    "review.cite.assumption": lambda p: "assumption (no source)",
    "review.cite.kb_show": lambda p: f"`advisor kb show {p.kb_id}`",
    "review.cite.none": lambda p: "no source given",
    "review.evidence.none": lambda p: "no evidence listed",
    # what would flip the verdict
    "review.flip.weight": lambda p: (
        f"{p.who} would win if the {p.name} weight were {'lowered' if p.threshold < p.value else 'raised'} "
        f"from {p.value:.2f} to {p.threshold:.2f}"
    ),
    "review.flip.set_value": lambda p: "a set value",
    "review.flip.constant": lambda p: (
        f"{p.who} would win if {p.words} {sig(p.threshold)}{f' {p.unit}' if p.unit else ''} (now {sig(p.value)})"
    ),
    "review.hard_constraints": lambda p: (
        f"decided by hard constraints: {', '.join(p.beaten)} scored higher but is ruled out"
    ),
    # the set values (constants) a criterion's score rests on
    "review.constant.assumption": lambda p: "an assumption",
    "review.constant.size_assumed": lambda p: "its size assumed",
    "review.constant.field_report": lambda p: "from a field report",
    "review.constant.definition": lambda p: "a definition of the model",
    "review.constant.value": lambda p: (
        (f"{p.what} {sig(p.value, 6)} {p.unit}" if p.what else f"{sig(p.value, 6)} {p.unit}") + f" ({p.kind})"
    ),
    # the reasons for and against the verdict
    "review.reason.set_value": lambda p: f"set value for {p.workflow}: {p.constant}",
    "review.reason.text": lambda p: (
        f"{p.criterion}: {p.top} {p.top_score:.0f} vs {p.other} {p.other_score:.0f} "
        f"({'+' if p.gain else ''}{p.points} points); evidence: {p.evidence}"
    ),
    # the probes and what they measured
    "review.unscored.unusable": lambda p: (
        "every run that finished was graded unusable (too noisy to decide: the host was busy); rerun "
        "`advisor probe` when it is quieter, or with a longer --budget"
    ),
    "review.unscored.kb_basis": lambda p: "the performance criterion is on the knowledge-base basis",
    "review.probe.accuracy": lambda p: f"accuracy probe: {p.note}",
    "review.probe.pipeline": lambda p: (
        "input-pipeline probe: measured loader rates "
        + (f"cap the projections of {', '.join(p.capped)}" if p.capped else "keep up with every projection")
    ),
    "review.probe.scaling": lambda p: f"scaling probe result: {p.label}, " + ("used" if p.used else "shown, not used"),
    "review.probe.inter_host": lambda p: (
        f"scaling across hosts: measured over {p.link}; "
        + (
            f"the scaling curve beyond one host uses it for {', '.join(p.used)}"
            if p.used
            else f"evidence only ({p.why_not})"
        )
    ),
    "review.input.training": lambda p: "training probe",
    "review.input.scaling": lambda p: "scaling probe",
    "review.input.accuracy": lambda p: "accuracy probe",
    "review.input.pipeline": lambda p: "input-pipeline probe",
    "review.input.transformer": lambda p: "transformer probe",
    "review.input.deployment": lambda p: "deployment probe",
    # the margin without the measurements
    "review.without.nothing": lambda p: (
        "nothing was measured: the verdict rests on the knowledge base and your requirements"
    ),
    "review.without.changed": lambda p: (
        f"the measurements changed the verdict: without them {p.workflow} would lead by {p.margin} points"
    ),
    "review.without.moved": lambda p: (
        f"the measurements moved the margin from {p.margin} to {p.today} points but not the verdict"
    ),
    "review.without.only_eligible": lambda p: (
        f"the measurements did not move the verdict: without them {p.workflow} is still the only eligible workflow"
    ),
    "review.without.unmoved": lambda p: "the measurements did not move the verdict or its margin",
    # the knowledge base's figures within their ranges
    "review.kbs.one_flips": lambda p: f"one flips it: {p.name} makes {p.workflow} the winner",
    "review.kbs.pair_flips": lambda p: (
        f"no single one flips it; two together make {p.workflow} the winner: {p.first}; {p.second}"
    ),
    "review.kbs.none_flips": lambda p: (
        f"none flips it; the two worst together ({p.first}; {p.second}) leave {p.margin} of {p.baseline} points"
    ),
    "review.kbs.nothing_moves": lambda p: f"none within its range moves the margin ({p.searched} searched)",
    # the register, the sign-off, the old ratings
    "review.register.kept": lambda p: (
        f"; the projections' scaling curve keeps {p.kept} of linear on this project's devices"
    ),
    "review.checked": lambda p: f"{p.first} to {p.last} (the oldest: `advisor kb show {p.oldest}`)",
    "review.signoff.figures": lambda p: f"{_CLASS[p.cls]}: {p.count} figures",
    "review.stale.name": lambda p: f"the {p.framework} {p.aspect.replace('_', ' ')} rating",
    "review.stale.refresh": lambda p: _REFRESH.get(p.aspect, "a dated source"),
    "review.stale.line": lambda p: (
        f"{p.count} deciding rating(s) older than {p.months} months (as of {p.as_of:%Y-%m}): re-rate "
        "them before signing (the data-quality appendix says how)"
    ),
    # the routes each option was scored on
    "review.serving.how": lambda p: f"{p.name} ({_SERVING_PATH.get(p.path or '', p.path or 'as scored')})",
    "review.serving.targets": lambda p: f"{', '.join(p.targets)} with {p.how}",
    "review.route.devices": _devices,
    "review.route.path": lambda p: _PATH.get(p.path, p.path),
    "review.route.hybrid": lambda p: (
        f"Hybrid: PyTorch prototype{' on NVIDIA GPUs' if p.proto else ''}, then {p.hardware} with MindSpore, {p.how}"
    ),
    "review.route.pytorch_via_npu": lambda p: f"PyTorch: prototype on NVIDIA, then {p.hardware} {p.how}, no port",
    "review.route.other": lambda p: f"{p.workflow}: {p.hardware}, {p.how}",
    "review.route.torch_npu_too": lambda p: "; developed and debugged on torch_npu too",
    "review.route.suite": lambda p: f", with {p.name}",
    "review.route.serves": lambda p: f"; serves {p.serving}",
    "review.route.target": lambda p: f"training on {_TARGET.get(p.target, p.target)}: hardware.training_target",
    "review.route.undecided": lambda p: "the training target is undecided: each option on its own best hardware",
    # why the confidence is what it is
    "review.confidence.margin": lambda p: f"margin {p.margin} points" + (", a tie" if p.tie else ""),
    "review.confidence.no_runner_up": lambda p: "no eligible runner-up",
    "review.confidence.fragile": lambda p: f"fragile: the nearest flip is {p.away} away",
    "review.confidence.evidence": lambda p: (
        f"deciding evidence **{p.label}** ({p.grade:.1f}/5), requirement rules ranked below sourced data"
    ),
    # the verdict under each reading of the mandate
    "review.mandate.verdict": lambda p: f"{p.workflow}, {p.total}/100, {p.margin} points ahead",
    "review.mandate.none": lambda p: f"no eligible workflow (highest {p.workflow})",
    "review.mandate.above": lambda p: "the verdict above",
    "review.mandate.reading": lambda p: f"read as {_READING.get(p.reading, p.reading)}: {p.verdict}",
    # the first page
    "review.block.ruled_out": lambda p: f"{p.workflow} is ruled out: {p.reason}",
    "review.block.schedule": lambda p: (
        f"the schedule for {p.workflow} "
        + (
            "does not fit the deadline, not even at the low end of the work"
            if p.fits == "no"
            else "fits the deadline only at the low end of the work"
        )
        + (f": {p.finding}" if p.finding else "")
    ),
    "review.block.memory": lambda p: f"the model does not fit in {p.accelerator} x{p.devices} memory",
    "review.headline": lambda p: (
        f"{p.workflow}, {p.total}/100"
        + (f", {p.margin} points ahead of {p.runner_up}" if p.runner_up else ", no eligible runner-up")
        + f"; confidence {p.confidence}"
    ),
    "review.headline.none_eligible": lambda p: (
        f"No workflow meets the hard constraints; the highest score is {p.workflow} ({p.total}/100), itself ruled out"
    ),
    "review.change.flip": lambda p: f"{p.flip} ({p.away} away, the nearest flip)",
    "review.change.none": lambda p: "no weight or searched set value within its range changes the winner",
    "review.change.kb": lambda p: f"knowledge-base figures within their ranges: {p.note}",
    "review.measured.not_scored": lambda p: f"; not scored: {p.why}",
    # the knowledge base the document was judged against
    "review.kb.unloadable": lambda p: "the knowledge base could not be loaded",
    "review.kb.other_version": lambda p: (
        f"read from the bundled knowledge base {p.version}, not the report's {p.wanted}"
    ),
    "review.kb.none": lambda p: "no knowledge base loaded",
}


REVIEW_CATALOGUE: dict[str, Entry] = {
    **REVIEW,
    **KB_SENSITIVITY,
    **RISKS,
    **STACK,
    **STACK_FETCHED,
}
