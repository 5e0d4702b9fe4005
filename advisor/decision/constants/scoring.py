"""The constants of the scoring side: deployment, team, performance without a projection, compliance,
migration and schedule, confidence, measured evidence, the rules of the criteria, the transformer
probe's dynamic-shape finding."""

from __future__ import annotations

from advisor.decision.constants.base import SEED_ASCEND_PRACTICE, SEED_RELEASED_TOGETHER, SEED_SAME_TASK, Constant

SCORING: list[Constant] = [
    # --- deployment ------------------------------------------------------------------------------
    Constant("NATIVE_FIT", 100.0, "points", "definition: a first-party deployment path scores the maximum"),
    Constant(
        "CONVERSION_FIT",
        55.0,
        "points",
        f"assumption: an export/convert path (ONNX, ATC) works with operator gaps; {SEED_SAME_TASK}, "
        "deployment section, names MindIR+Lite on Ascend and ONNX/TensorRT on NVIDIA as the native paths; "
        "55 sits about halfway between no path and the native one",
        "the export path scored",
        (0.0, 100.0),
    ),
    Constant(
        "EXPORT_OK_POINTS",
        50.0,
        "points",
        "advisor.decision.deployment: assumption: of a measured deployment path's 100 points, an export that works "
        "(the step the field reports say fails 'occasionally') earns half; serving, parity and latency share the "
        "rest. On a CPU server the measured path is the fit itself; for an accelerator target, a framework whose "
        "every measured path scored below it did not export, which caps that target's fit",
        "a working export earned",
        (20.0, 80.0),
        projection=True,
        acts_when="deploy",
    ),
    # The rest of a measured deployment path's points (advisor.decision.deployment). assumption: the order
    # matters more than the values: an artefact that cannot be produced is no path at all; one produced
    # but disagreeing with its source is worse than a slow one ("silently wrong"); speed decides among
    # working, agreeing paths. Whole points, as EXPORT_OK_POINTS.
    Constant(
        "SERVES_POINTS",
        10.0,
        "points",
        "assumption: the exported artefact loads and answers on its serving engine",
        "an artefact that serves earned",
        (0.0, 30.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "PARITY_POINTS",
        20.0,
        "points",
        "assumption: the artefact's outputs agree with the source framework's within the fp32 tolerance",
        "outputs that agree with the source earned",
        (0.0, 40.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "LATENCY_POINTS",
        20.0,
        "points",
        "assumption: full when the artefact's P50 at batch 1 is at most the source's, in proportion below",
        "serving as fast as the source earned",
        (0.0, 40.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "PARITY_FAIL_CAP",
        30.0,
        "points",
        "assumption: an artefact whose outputs disagree with the source never scores above a half-working one",
        "a disagreeing artefact were capped at",
        (0.0, 60.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "SERVE_FAIL_CAP",
        40.0,
        "points",
        "assumption: an artefact exported but not servable here scores at most this",
        "an artefact that does not serve were capped at",
        (0.0, 60.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "FALLBACK_PENALTY",
        10.0,
        "points",
        f"{SEED_RELEASED_TOGETHER} §5.3: operator fallback to the CPU ruins performance; nodes that silently ran "
        "on another execution provider cost this (the size is an assumption)",
        "a silent operator fallback cost",
        (0.0, 40.0),
        projection=True,
        acts_when="deploy",
    ),
    Constant(
        "VENDOR_CONVERTER_FIT",
        80.0,
        "points",
        "assumption: a vendor-maintained converter from the trained weights to the serving runtime (ONNX -> ATC -> "
        "OM with AscendCL; HF checkpoints -> TensorRT-LLM engines) is the vendor's documented path, with a build "
        "step and operator coverage to check but no re-implementation: between the export path (CONVERSION_FIT) "
        "and the native one",
        "a vendor converter path scored",
        (40.0, 100.0),
    ),
    Constant(
        "UNKNOWN_DEPLOYMENT_FIT",
        70.0,
        "points",
        "assumption: a target the knowledge base has no deployment entry for is probably reachable",
        "an unknown deployment target scored",
        (0.0, 100.0),
    ),
    Constant(
        "HYBRID_EDGE_PENALTY",
        15.0,
        "points",
        f"{SEED_ASCEND_PRACTICE} §5.7 and {SEED_RELEASED_TOGETHER} §5.3: unsupported edge operators show up "
        "only at conversion of a model designed in PyTorch; the size is an assumption",
        "the hybrid edge penalty were",
        (0.0, 60.0),
    ),
    Constant(
        "EDGE_CLOUD_PYTORCH_PENALTY",
        15.0,
        "points",
        "assumption: train in the cloud and infer on devices with two toolchains on a PyTorch stack",
        "the PyTorch edge-cloud penalty were",
        (0.0, 60.0),
    ),
    # --- team ------------------------------------------------------------------------------------
    Constant(
        "TEAM_SKILL_BASE",
        25.0,
        "points",
        "assumption: a team with no skill in a framework still scores a quarter (it can learn it); with "
        "TEAM_SKILL_STEP per level an expert team scores the maximum",
        "a team's score with no skill were",
        (0.0, 50.0),
    ),
    Constant(
        "TEAM_SKILL_STEP",
        25.0,
        "points per skill level",
        "assumption: none, basic, proficient and expert as equal steps from TEAM_SKILL_BASE to 100",
        "each skill level were worth",
        (10.0, 33.0),
    ),
    Constant(
        "HYBRID_TWO_STACKS",
        8.0,
        "points",
        f"{SEED_RELEASED_TOGETHER} §5.1: two toolchains, two sets of framework bugs and a parity check; "
        "the size is an assumption",
        "keeping two stacks cost",
        (0.0, 50.0),
    ),
    Constant(
        "SMALL_TEAM_PENALTY",
        10.0,
        "points",
        "assumption: a team of two or fewer carries both stacks with no one to specialise",
        "the small-team penalty were",
        (0.0, 50.0),
    ),
    # --- performance without a projection -----------------------------------------------------------
    Constant(
        "ASSUMED_PERF_NATIVE",
        80.0,
        "points",
        "assumption: a first-party path with nothing to project from",
        "an unprojected first-party path scored",
        (0.0, 100.0),
    ),
    Constant(
        "ASSUMED_PERF_ADAPTER",
        60.0,
        "points",
        f"assumption, ordered by {SEED_ASCEND_PRACTICE} §2.3 (adapter PyTorch ~15-20% below native MindSpore)",
        "an unprojected adapter path scored",
        (0.0, 100.0),
    ),
    Constant(
        "ASSUMED_PERF_CPU",
        30.0,
        "points",
        "assumption: accelerators are one to two orders of magnitude faster than CPU training",
        "unprojected CPU training scored",
        (0.0, 100.0),
    ),
    Constant(
        "DYNAMIC_GRAPH_KEEP",
        0.7,
        "fraction",
        f"assumption from {SEED_SAME_TASK} (PyNative vs Graph epoch times): data-dependent control flow or "
        "dynamic shapes keep MindSpore out of Graph mode (knowledge base workflows `bad_for`), ~0.7x throughput",
        "MindSpore with dynamic control flow/shapes kept",
        (0.1, 1.0),
    ),
    # --- compliance ------------------------------------------------------------------------------
    Constant(
        "COMPLIANCE_HARDWARE_WEIGHT",
        0.4,
        "share",
        "assumption: domestic training hardware is the larger part of a substitution mandate",
        "the compliance hardware share were",
        (0.0, 1.0),
    ),
    Constant(
        "COMPLIANCE_FRAMEWORK_WEIGHT",
        0.3,
        "share",
        "assumption: a domestic framework",
        "the compliance framework share were",
        (0.0, 1.0),
    ),
    Constant(
        "COMPLIANCE_DEPLOYMENT_WEIGHT",
        0.3,
        "share",
        "assumption: non-NVIDIA deployment targets",
        "the compliance deployment share were",
        (0.0, 1.0),
    ),
    Constant(
        "COMPLIANCE_UNMET_PENALTY",
        10.0,
        "points",
        "assumption: a required substitution that is only partly met",
        "the unmet-mandate penalty were",
        (0.0, 50.0),
    ),
    Constant(
        "HYBRID_COMPLIANCE_PREFERRED",
        5.0,
        "points",
        "assumption: the hybrid's prototype stage runs on a non-domestic framework (preferred mandate)",
        "the hybrid's prototype-stage compliance penalty (preferred) were",
        (0.0, 50.0),
    ),
    Constant(
        "HYBRID_COMPLIANCE_REQUIRED",
        15.0,
        "points",
        "assumption: the hybrid's prototype stage runs on a non-domestic framework (required mandate)",
        "the hybrid's prototype-stage compliance penalty (required) were",
        (0.0, 60.0),
    ),
    # --- migration and schedule ------------------------------------------------------------------
    Constant(
        "MIGRATION_HOURS_FACTOR",
        1.0,
        "x estimate",
        "definition: 1 = the estimate as computed (pitfalls, port, scan); searched to say how wrong it may be",
        "migration took",
        (0.1, 10.0),
    ),
    Constant("HOURS_PER_WEEK", 40.0, "hours", "convention: one engineer-week"),
    # Re-implementing a validated PyTorch model in MindSpore and checking that its loss matches, before any
    # hazard: hours per model family (the code scan's estimate replaces them when model.code_path is given).
    Constant(
        "PORT_HOURS_CNN_LOW",
        4.0,
        "hours",
        f"{SEED_ASCEND_PRACTICE} §6.1 (a ResNet-18 re-implemented in an afternoon) and "
        f"{SEED_RELEASED_TOGETHER} §3.3 (a few hundred lines in half a day if you know both)",
        "re-implementing a CNN model took at least",
        (1.0, 16.0),
    ),
    Constant(
        "PORT_HOURS_CNN_HIGH",
        16.0,
        "hours",
        f"{SEED_RELEASED_TOGETHER} §3.3: complex models are 'manual labour'; two working days as the "
        "upper end is an assumption",
        "re-implementing a CNN model took at most",
        (4.0, 64.0),
    ),
    Constant(
        "PORT_HOURS_TRANSFORMER_LOW",
        8.0,
        "hours",
        "assumption: the CNN figures (PORT_HOURS_CNN_LOW/HIGH) scaled up for a transformer model",
        "re-implementing a transformer model took at least",
        (2.0, 40.0),
    ),
    Constant(
        "PORT_HOURS_TRANSFORMER_HIGH",
        40.0,
        "hours",
        "assumption: as PORT_HOURS_TRANSFORMER_LOW, upper end",
        "re-implementing a transformer model took at most",
        (8.0, 160.0),
    ),
    Constant(
        "PORT_HOURS_RNN_LOW",
        8.0,
        "hours",
        "assumption: the CNN figures (PORT_HOURS_CNN_LOW/HIGH) scaled up for an RNN model",
        "re-implementing an RNN model took at least",
        (2.0, 32.0),
    ),
    Constant(
        "PORT_HOURS_RNN_HIGH",
        32.0,
        "hours",
        "assumption: as PORT_HOURS_RNN_LOW, upper end",
        "re-implementing an RNN model took at most",
        (8.0, 128.0),
    ),
    Constant(
        "PORT_HOURS_GNN_LOW",
        16.0,
        "hours",
        "assumption: the CNN figures (PORT_HOURS_CNN_LOW/HIGH) scaled up for a GNN model",
        "re-implementing a GNN model took at least",
        (4.0, 60.0),
    ),
    Constant(
        "PORT_HOURS_GNN_HIGH",
        60.0,
        "hours",
        "assumption: as PORT_HOURS_GNN_LOW, upper end",
        "re-implementing a GNN model took at most",
        (16.0, 240.0),
    ),
    Constant(
        "PORT_HOURS_OTHER_LOW",
        8.0,
        "hours",
        "assumption: the CNN figures (PORT_HOURS_CNN_LOW/HIGH) scaled up for a model of another family",
        "re-implementing a model of another family took at least",
        (2.0, 40.0),
    ),
    Constant(
        "PORT_HOURS_OTHER_HIGH",
        40.0,
        "hours",
        "assumption: as PORT_HOURS_OTHER_LOW, upper end",
        "re-implementing a model of another family took at most",
        (8.0, 160.0),
    ),
    Constant("HOURS_PER_DAY", 8.0, "hours", "convention: one engineer-day (the knowledge base's engineer-day rate)"),
    Constant(
        "PROJECT_WEEKS",
        26.0,
        "weeks",
        "assumption: a project without a deadline runs about half a year (the team-time part of the cost)",
        "a project without a deadline ran",
        (1.0, 520.0),
    ),
    Constant(
        "DEADLINE_SHARE",
        0.5,
        "share",
        "assumption: migration may take at most half of the team's time before the deadline; the rest builds "
        "the product",
        "the deadline share were",
        (0.05, 1.0),
    ),
    Constant(
        "DEADLINE_PRESSURE_POINTS",
        30.0,
        "points",
        "assumption: migration effort loses 30 points when its hours take the whole deadline share (2 x 30 x p / (1 + p))",
        "the deadline pressure were",
        (0.0, 100.0),
    ),
    Constant(
        "CUSTOM_KERNEL_HOURS_LOW",
        8.0,
        "hours per kernel",
        f"assumption: re-writing one custom CUDA kernel as an Ascend custom operator; {SEED_RELEASED_TOGETHER} "
        "§3.3 calls custom operators the hard part of a migration",
        "a custom kernel's port took (low)",
        (0.0, 200.0),
    ),
    Constant("CUSTOM_KERNEL_HOURS_HIGH", 40.0, "hours per kernel", "assumption: as CUSTOM_KERNEL_HOURS_LOW, upper end"),
    Constant(
        "DYNAMIC_SHAPES_HOURS_LOW",
        8.0,
        "hours",
        "assumption: bucketing/padding inputs so Graph mode compiles a few shapes instead of one per batch",
    ),
    Constant("DYNAMIC_SHAPES_HOURS_HIGH", 32.0, "hours", "assumption: as DYNAMIC_SHAPES_HOURS_LOW, upper end"),
    Constant(
        "PARALLEL_SETUP_PYTORCH_LOW",
        40.0,
        "hours",
        f"{SEED_RELEASED_TOGETHER} §3.1: a hand-written parallel plan for a very large model can take weeks to "
        "tune; 40-160 h (one to four engineer-weeks) is an assumption for FSDP/DeepSpeed/Megatron set-up",
    ),
    Constant("PARALLEL_SETUP_PYTORCH_HIGH", 160.0, "hours", "as PARALLEL_SETUP_PYTORCH_LOW, upper end"),
    Constant(
        "PARALLEL_SETUP_MINDSPORE_LOW",
        16.0,
        "hours",
        f"{SEED_ASCEND_PRACTICE} §2.2: automatic parallelism 'writes half the distributed code'; half of the "
        "PyTorch set-up hours",
    ),
    Constant("PARALLEL_SETUP_MINDSPORE_HIGH", 80.0, "hours", "as PARALLEL_SETUP_MINDSPORE_LOW, upper end"),
    Constant(
        "PIPELINE_MIN_PASSES",
        3.0,
        "passes",
        "assumption: a measured input-pipeline rate moves a verdict only when the probe timed "
        "it over at least this many passes and graded it stable; one short pass (0.05-1.4 s) is evidence only",
    ),
    Constant(
        "PIPELINE_WORKERS_PER_HOST",
        32.0,
        "loader workers",
        "assumption: a training host runs about 4 loader worker processes per device (the common DataLoader "
        "num_workers=4 per rank) x 8 devices; a measured rate transfers to the target host per worker",
        "the loader workers of a target host were",
        (4.0, 128.0),
    ),
    Constant(
        "REVERSE_PORT_API_SHARE",
        0.3,
        "share",
        "assumption: porting existing MindSpore code to PyTorch reads the knowledge base's api-mappings in "
        "reverse; a model uses about this share of the APIs whose behaviour differs (each mapping's effort is "
        "per distinct API used); with model.code_path the scan of the code would count them",
        "the share of differing APIs a MindSpore model uses were",
        (0.05, 1.0),
    ),
    Constant(
        "AUTO_PARALLEL_LIMIT_LOW",
        8.0,
        "hours",
        f"{SEED_ASCEND_PRACTICE} §7.2: strategy search is costly on complex models; large models need "
        "semi-automatic parallelism by hand (hours an assumption)",
    ),
    Constant("AUTO_PARALLEL_LIMIT_HIGH", 40.0, "hours", "as AUTO_PARALLEL_LIMIT_LOW, upper end"),
    Constant(
        "TRAINING_RUNS",
        3.0,
        "full runs",
        "assumption: a production model is trained a few times over a project (a first run, a fix, the final "
        "run); performance scores the share of the project's wall-clock time these runs take, so a throughput gap "
        "matters as far as it moves the schedule",
        "the full training runs in the project were",
        (1.0, 10.0),
    ),
    Constant(
        "AMORTISATION_YEARS",
        4.0,
        "years",
        "assumption: accelerator servers are written off over 3-5 years (straight-line depreciation); owned "
        "hardware is charged its purchase price over this, never a rental price (constraints.amortisation_years "
        "overrides it)",
        "owned hardware were written off over",
        (2.0, 8.0),
    ),
    # --- how likely a pitfall bites (advisor.decision.likelihood; the per-pitfall rules are in pitfalls.yaml)
    Constant(
        "LIKELIHOOD_UNCONDITIONAL",
        0.5,
        "likelihood",
        "assumption: a pitfall that applies to every project on its workflow, with no rule of its own, bites "
        "one project in two",
        "an unconditional pitfall's likelihood were",
        (0.1, 0.9),
    ),
    Constant(
        "LIKELIHOOD_CONDITIONAL",
        0.6,
        "likelihood",
        "assumption: a pitfall whose conditions hold for the project, with no rule of its own, a little more likely "
        "than an unconditional one",
        "a conditional pitfall's likelihood were",
        (0.1, 0.95),
    ),
    Constant(
        "LIKELIHOOD_SCAN_HIT",
        0.95,
        "likelihood",
        "assumption: the migration scan found the hazard in the project's own code: near-certain",
        "a scan-found hazard's likelihood were",
        (0.5, 1.0),
    ),
    Constant(
        "LIKELIHOOD_MEASURED_HIT",
        0.95,
        "likelihood",
        "assumption: a probe measured the pitfall's symptom (an accuracy gap beyond the tolerance, a pipeline that "
        "cannot feed the target): strong evidence, not proof, for the team's model and hosts",
        "a measured hit's likelihood were",
        (0.5, 1.0),
    ),
    Constant(
        "LIKELIHOOD_MEASURED_CLEAR",
        0.1,
        "likelihood",
        "assumption: a probe measured the symptom absent on a small model and this host's CPU",
        "a measured clear's likelihood were",
        (0.0, 0.5),
    ),
    Constant(
        "LIKELIHOOD_NOT_PORTED",
        0.3,
        "x likelihood",
        "assumption: a hazard of porting PyTorch code, on a MindSpore workflow with nothing to port (habits still "
        "carry over)",
        "a porting hazard with nothing ported kept",
        (0.0, 1.0),
    ),
    # --- confidence ------------------------------------------------------------------------------
    Constant("CONFIDENCE_HIGH_MARGIN", 8.0, "points", "assumption: 8 of 100 points is beyond the scores' own rounding"),
    Constant("CONFIDENCE_MEDIUM_MARGIN", 3.0, "points", "assumption"),
    Constant("TIE_MARGIN", 0.5, "points", "assumption: below half a point the two are reported as a tie"),
    Constant(
        "EVIDENCE_GOOD",
        3.5,
        "quality (1-5)",
        "assumption: decisive evidence averaging between secondary and vendor quality",
    ),
    Constant(
        "EVIDENCE_FAIR",
        2.5,
        "quality (1-5)",
        "assumption: decisive evidence averaging between blog (2) and secondary (3) quality",
    ),
    Constant(
        "FLIP_FRAGILE",
        0.25,
        "relative change",
        "assumption: a verdict that flips when a weight or constant moves by a quarter is fragile",
    ),
    # --- measured evidence from the accuracy and input-pipeline probes ------------------------------
    Constant(
        "ACCURACY_GAP_PENALTY",
        10.0,
        "points",
        f"assumption: a measured cross-framework accuracy gap beyond the tolerance (advisor.accuracy) is a "
        f"migration risk as large as the scan's high risk (SCAN_RISK_PENALTY); {SEED_SAME_TASK} makes 'accuracy "
        "is practically the same' the headline that says the frameworks compute the same thing",
        "a measured accuracy gap cost",
        (0.0, 50.0),
    ),
    Constant(
        "ACCURACY_TOLERANCE",
        0.01,
        "fraction",
        "advisor.decision.accuracy: assumption: one percentage point of test accuracy is the smallest difference a "
        f"team would act on; {SEED_SAME_TASK} (training-accuracy table: 93.2% / 93.1% / 93.0%) has the three "
        "frameworks 0.2 points apart. A gap's 95% interval outside +-tolerance is 'differs' (ACCURACY_GAP_PENALTY)",
        "the accuracy tolerance were",
        (0.001, 0.05),
    ),
    # --- rules moved out of the criteria, so that every decisive constant is named and searched --
    Constant(
        "SCAN_RISK_MEDIUM_PENALTY",
        5.0,
        "points",
        "assumption: risk the code scan finds (custom extensions, data-dependent control flow) beyond its hours, "
        "for a medium-risk scan",
        "a medium-risk scan cost",
        (0.0, 30.0),
    ),
    Constant(
        "SCAN_RISK_HIGH_PENALTY",
        10.0,
        "points",
        "assumption: as SCAN_RISK_MEDIUM_PENALTY, for a high-risk scan (twice the medium one)",
        "a high-risk scan cost",
        (0.0, 40.0),
    ),
    Constant(
        "HYBRID_SHARE_SCALE",
        1.0,
        "x the table",
        f"assumption: the hybrid's share of ecosystem, debugging and team work done in PyTorch per stage "
        f"(research 0.7/0.8/0.6, prototype 0.6/0.7/0.5, production 0.3/0.35/0.3; {SEED_SAME_TASK}, 'when to "
        "use both': prototype in PyTorch, then train and serve with MindSpore) scaled by this factor",
        "the PyTorch shares of the hybrid's work were scaled by",
        (0.25, 1.25),
        projection=True,
    ),
    Constant(
        "PROTOTYPE_FLUENCY_STEP",
        0.25,
        "per skill level",
        "assumption: a PyTorch prototype phase pays off as far as the team is more fluent in PyTorch than in "
        "MindSpore: 0.5 at equal skill, this much more or less per level of difference; one rule for the hybrid "
        "and for the PyTorch route that prototypes on NVIDIA before torch_npu",
        "prototype fluency moved per skill level by",
        (0.0, 0.5),
        projection=True,
    ),
    Constant(
        "HUB_WEIGHT_NONE",
        0.5,
        "aspect weight",
        "assumption: the model hub weighed beside libraries, community and documentation (1 each) when the team "
        "does not need HuggingFace",
        "the model hub weighed (no HuggingFace need)",
        (0.0, 3.0),
        projection=True,
    ),
    Constant(
        "HUB_WEIGHT_NICE",
        1.5,
        "aspect weight",
        "assumption: as HUB_WEIGHT_NONE, when HuggingFace is nice to have",
        "the model hub weighed (HuggingFace nice to have)",
        (0.0, 6.0),
        projection=True,
    ),
    Constant(
        "HUB_WEIGHT_ESSENTIAL",
        3.0,
        "aspect weight",
        "assumption: as HUB_WEIGHT_NONE, when HuggingFace is essential (three times the other aspects)",
        "the model hub weighed (HuggingFace essential)",
        (0.0, 9.0),
        projection=True,
    ),
    # --- the transformer probe's dynamic-shape finding (advisor.decision.transformer_evidence) ---
    Constant(
        "DYNAMIC_COST_FLOOR",
        0.10,
        "fraction of tokens/s",
        "assumption: a variable-length cost below 10% of end-to-end tokens/s is inside what two passes of a "
        "short length schedule on a shared CPU can tell apart (the probes' noisy bound on a run's spread is "
        "10%, probes.quality); below it the finding moves nothing",
        "a variable-length cost counted from",
        (0.0, 0.5),
    ),
    Constant(
        "DYNAMIC_SHAPE_PENALTY",
        20.0,
        "points at a 100% cost",
        "assumption: migration points lost per unit of measured tokens/s cost, so a 50% loss from unmitigated "
        "variable lengths weighs as much as a measured accuracy gap (ACCURACY_GAP_PENALTY, 10 points); "
        f"{SEED_RELEASED_TOGETHER} §3.3 names dynamic shape as the main cost of migrating complex models",
        "the dynamic-shape penalty at a 100% cost were",
        (0.0, 60.0),
    ),
    Constant(
        "DYNAMIC_MEASURED_HIT",
        0.95,
        "likelihood",
        "the risk register's MEASURED_HIT (advisor.decision.likelihood): a probe measured the pitfall's symptom "
        "(graph recompiles per new length and the tokens/s they cost); assumption that a small GPT on this "
        "host's CPU is strong evidence, not proof, for the team's model",
        "a measured dynamic-shape cost made the pitfall's likelihood",
        (0.5, 1.0),
    ),
    Constant(
        "DYNAMIC_MITIGATED_LIKELIHOOD",
        0.3,
        "likelihood",
        "assumption: the measured fix (bucketing or Cell.set_inputs) keeps tokens/s within DYNAMIC_COST_FLOOR "
        "here, so what is left is applying it and checking it on the target hardware (graph compilation on "
        f"Ascend differs from CPU; {SEED_SAME_TASK} measures graph compile time per run)",
        "a measured working mitigation left the pitfall's likelihood at",
        (0.05, 0.9),
    ),
]
