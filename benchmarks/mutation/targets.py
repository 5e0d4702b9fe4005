"""What the generated mutants cover, grouped as the score is reported, and the tests that may kill them.

Each target is a file, or named functions in it (qualified-name prefixes): the decision arithmetic, the
cache and the writer, the probe result path, the renderers' number formatting. The test files are every
fast file that runs this code in-process; the baseline finds, per mutant line, which of their tests
execute it, and only those run.
"""

from __future__ import annotations

from typing import Optional

Target = tuple[str, str, Optional[tuple[str, ...]]]  # (package, path, functions or None for all)

_DECISION = (
    "memory",
    "workload",
    "throughput",
    "projections",
    "communication",
    "serving",
    "serving_capacity",
    "tco",
    "schedule",
    "evaluate",
)
_CRITERIA = ("common", "compliance", "cost", "deployment", "ecosystem", "migration", "performance", "team")
_RUNNER_RESULTS = (
    "run_load",
    "window_load",
    "_contention",
    "_run_from_outcome",
    "_merge_repeats",
    "_first_start_up",
    "_rounds",
    "model_comparisons",
    "_undecided",
    "_add_efficiency",
    "_not_run",
)

TARGETS: list[Target] = [
    *[("decision", f"advisor/decision/{name}.py", None) for name in _DECISION],
    *[("decision", f"advisor/decision/criteria/{name}.py", None) for name in _CRITERIA],
    ("cache and writer", "advisor/cache.py", None),
    ("cache and writer", "advisor/output.py", None),
    ("probe results", "probes/training/stats.py", None),
    ("probe results", "probes/training/measure.py", None),
    ("probe results", "probes/training/runner.py", _RUNNER_RESULTS),
    ("probe results", "advisor/measurements.py", None),
    ("probe results", "advisor/result_checks.py", None),
    ("number formatting", "advisor/render/_fmt.py", None),
    ("number formatting", "advisor/render/tables/__init__.py", ("rate_text",)),
    ("number formatting", "advisor/render/tables/check.py", ("_num", "_mb")),
    ("number formatting", "advisor/render/tables/compare.py", ("_fmt",)),
    ("number formatting", "advisor/render/tables/deploy.py", ("_f",)),
    ("number formatting", "advisor/render/tables/gpt.py", ("_f",)),
    ("number formatting", "advisor/render/tables/probe.py", ("_fmt", "_cv", "_rate")),
    ("number formatting", "advisor/render/tables/scaling.py", ("_fmt",)),
    ("number formatting", "advisor/render/tables/scan.py", ("_num", "_h")),
]

# Per package, the fast test files that run its code in-process. Files that reach the code only through
# an `advisor` subprocess (most of the hardening catalogue) are left to the planted bugs: a function
# patched in the runner's child is not patched in a subprocess.
TEST_FILES: dict[str, list[str]] = {
    "decision": [
        "tests/test_decision_evaluation_reuse.py",
        "tests/test_decision_model.py",
        "tests/test_decision_pipeline.py",
        "tests/test_decision_record.py",
        "tests/test_gpt_report_wiring.py",
        "tests/test_kills_decision.py",
        "tests/test_kills_decision_fresh.py",
        "tests/test_kills_decision_fresh2.py",
        "tests/test_kills_decision_fresh3.py",
        "tests/test_kills_decision_fresh4.py",
        "tests/test_kills_decision_fresh5.py",
        "tests/test_kills_decision_fresh6.py",
        "tests/test_kills_decision_fresh7.py",
        "tests/test_kills_decision_communication.py",
        "tests/test_kills_decision_criteria.py",
        "tests/test_kills_decision_gaps.py",
        "tests/test_kills_decision_memory.py",
        "tests/test_kills_decision_projections.py",
        "tests/test_kills_decision_serving.py",
        "tests/test_kills_decision_tco.py",
        "tests/test_kills_decision_throughput.py",
        "tests/test_kills_decision_workload.py",
        "tests/test_decision_properties.py",
        "tests/test_deploy_scoring.py",
        "tests/test_gpt_memory.py",
        "tests/test_heldout_workloads.py",
        "tests/test_memory_public_models.py",
        "tests/test_report_measured.py",
        "tests/test_report_scaling.py",
        "tests/test_routes_scoring.py",
        "tests/test_scan_optional_in_decision.py",
        "tests/test_scoring_decisions.py",
        "tests/test_scoring_projections.py",
        "tests/test_serving_capacity.py",
        "tests/test_vendor_peak.py",
        "tests/test_wiring_inputs.py",
        "tests/test_workload_formulas.py",
        "tests/test_workload_properties.py",
        "tests/test_workload_teams.py",
    ],
    "cache and writer": [
        "tests/test_bad_input_catalogue.py",
        "tests/test_cache.py",
        "tests/test_hardening_keep.py",
        "tests/test_hardening_medium.py",
        "tests/test_kills_cache_and_writer.py",
        "tests/test_kills_cache_and_writer_fresh2.py",
        "tests/test_kills_cache_and_writer_fresh3.py",
        "tests/test_kills_cache_and_writer_fresh4.py",
        "tests/test_probe_runner.py",
    ],
    "probe results": [
        "tests/test_kills_probe_results.py",
        "tests/test_kills_probe_results_fresh.py",
        "tests/test_kills_probe_results_fresh2.py",
        "tests/test_kills_probe_results_fresh3.py",
        "tests/test_measurements.py",
        "tests/test_planted_bugs.py",
        "tests/test_probe_runner.py",
        "tests/test_probe_stats.py",
        "tests/test_probe_units.py",
        "tests/test_report_measured.py",
        "tests/test_report_typed_parts.py",
    ],
    "number formatting": [
        "tests/test_cli_renderers.py",
        "tests/test_number_formatting.py",
        "tests/test_planted_bugs.py",
        "tests/test_render_formats.py",
        "tests/test_terminal_tables.py",
    ],
}


# The smoke run's few fast files per package: enough to reach some mutants of each and kill one.
SMOKE_TEST_FILES: dict[str, list[str]] = {
    "decision": ["tests/test_workload_formulas.py"],
    "cache and writer": ["tests/test_cache.py"],
    "probe results": ["tests/test_probe_stats.py"],
    "number formatting": ["tests/test_number_formatting.py"],
}


def test_files(packages, smoke: bool = False) -> list[str]:
    """The test files of these packages (the smoke's few when `smoke`), each once, in a stable order."""
    files = SMOKE_TEST_FILES if smoke else TEST_FILES
    return sorted({f for package in packages for f in files[package]})
