"""`advisor report REQUIREMENTS.yaml`: the recommendation as a terminal summary (on a terminal), one
JSON document (piped, or -o FILE.json), a Markdown review document with its SVG charts written beside
it (-o FILE.md), or one self-contained HTML file (-o FILE.html); --table/--json/--markdown/--html force one.

Inputs: the requirements file; the knowledge base (plus `--kb DIR` overrides); this host (a quick
check without framework smoke tests); probe results from the cache for this host, from `--probes
FILE ...` (`advisor probe --json -o FILE` on other hosts), or freshly measured with `--run-probes`; the
data-parallel scaling result (`advisor probe --scaling`) from the cache for this host or from `--scaling
FILE`, used for multi-device communication when the requirements ask for distributed training; the
deployment, accuracy, input-pipeline and transformer probe results (`--deploy`, `--accuracy`, `--pipeline`, `--gpt FILE`) as
measured evidence for deployment, migration risk and performance. Every input is read and validated
before anything is written, so bad input leaves no output file behind.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, TextIO, TypeVar

from advisor.errors import UsageError
from advisor.output import read_json

if TYPE_CHECKING:  # the models load when a file is read, not when the parser is built
    from pydantic import BaseModel

    from advisor.measurements import Measurements
    from advisor.requirements import Requirements
    from advisor.scan import ScanResult
    from knowledge.models import KnowledgeBase
    from probes.accuracy.models import AccuracySuite
    from probes.check.models import CheckReport
    from probes.deploy.models import DeployResult
    from probes.pipeline.models import PipelineSuite
    from probes.scaling.models import ScalingResult
    from probes.training.models import ProbeSuite
    from probes.transformer.models import GptResult

    Model = TypeVar("Model", bound=BaseModel)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="score PyTorch, MindSpore and hybrid for your requirements and write the report",
        description=__doc__,
    )
    parser.add_argument("requirements", metavar="REQUIREMENTS.yaml", help="the team's requirements file")
    parser.add_argument(
        "--probes",
        metavar="FILE",
        nargs="+",
        default=[],
        help="probe results files (`advisor probe --json -o FILE`), e.g. from other hosts",
    )
    parser.add_argument(
        "--scaling",
        metavar="FILE",
        help="scaling probe result (`advisor probe --scaling --json -o FILE`) instead of this host's cached one",
    )
    parser.add_argument(
        "--deploy",
        metavar="FILE",
        help="deployment probe result (`advisor probe --deploy -o FILE`): measured evidence for the "
        "deployment criterion",
    )
    parser.add_argument(
        "--accuracy",
        metavar="FILE",
        help="accuracy probe result (`advisor probe --accuracy --json -o FILE`): the cross-framework accuracy "
        "gap as measured evidence for migration risk",
    )
    parser.add_argument(
        "--pipeline",
        metavar="FILE",
        help="input-pipeline probe result (`advisor probe --pipeline --json -o FILE`): caps the projected "
        "throughput where the loader cannot feed the target's devices",
    )
    parser.add_argument(
        "--gpt",
        metavar="FILE",
        help="transformer probe result (`advisor probe --models gpt --json -o FILE`): tokens/s measured here and "
        "the dynamic-shape cost as evidence for migration risk",
    )
    parser.add_argument(
        "--run-probes",
        action="store_true",
        help="measure this host now (the short probe suite) instead of using cached results",
    )
    parser.add_argument("--no-cache", action="store_true", help="ignore cached probe and scaling results for this host")
    parser.add_argument(
        "--kb",
        metavar="DIR",
        action="append",
        default=[],
        help="extra knowledge-base folder merged over the bundled one (repeatable)",
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help="one JSON document (the default when stdout is not a terminal, or -o FILE.json)",
    )
    fmt.add_argument(
        "--markdown",
        action="store_true",
        help="a Markdown review document; with -o FILE.md its SVG charts are written beside it and linked",
    )
    fmt.add_argument(
        "--html", action="store_true", help="one self-contained HTML file, charts inline (the default for -o FILE.html)"
    )
    fmt.add_argument("--table", action="store_true", help="a short terminal summary (the default on a terminal)")
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (atomically) instead of stdout")
    parser.set_defaults(func=run)


# --- inputs --------------------------------------------------------------------------------------


def load_kb(extra_dirs: list[str]) -> KnowledgeBase:
    """The bundled knowledge base merged with `extra_dirs`. Bad files are bad input."""
    import knowledge

    for d in extra_dirs:
        try:
            is_dir = Path(d).is_dir()
        except (OSError, ValueError) as exc:  # a 300-character name, a NUL byte
            raise UsageError(f"{d}: --kb: {getattr(exc, 'strerror', None) or exc}") from None
        if not is_dir:
            raise UsageError(f"{d}: --kb: expected a folder of knowledge-base YAML files")
    try:
        return knowledge.load(extra_dirs=extra_dirs or None)
    except knowledge.KnowledgeError as exc:  # already one line naming file, entry and field
        raise UsageError(str(exc)) from None


def load_probe_file(path: str) -> ProbeSuite:
    """One probe results file, validated as a ProbeSuite."""
    data = read_json(path, "expected the JSON written by `advisor probe --json -o FILE`", "--probes")
    if isinstance(data, dict) and data.get("kind") == "scaling":
        raise UsageError(
            f"{path}: kind: this is a scaling probe result: pass it with --scaling FILE "
            "(--probes expects the JSON written by `advisor probe --json -o FILE`)"
        )
    if not isinstance(data, dict) or "runs" not in data:
        raise UsageError(
            f"{path}: (top level): expected a probe results object with 'runs' (from `advisor probe --json -o FILE`)"
        )
    from probes.training.models import SCHEMA_VERSION, ProbeSuite

    version = data.get("schema_version", SCHEMA_VERSION)
    if not isinstance(version, str) or version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise UsageError(
            f"{path}: schema_version: {version!r} is not a probe results version this tool reads: "
            f"expected {SCHEMA_VERSION.split('.')[0]}.x (from `advisor probe --json -o FILE`)"
        )
    suite = _validated(path, ProbeSuite, data)
    for i, run in enumerate(suite.runs):
        for field in ("images_per_second", "images_per_second_median"):
            value = getattr(run, field)
            if value is not None and value < 0:
                raise UsageError(f"{path}: runs[{i}].{field}: {value} is negative: expected a measured throughput >= 0")
    return suite


def _validated(path: str, model: type[Model], data: dict) -> Model:
    """`data` as the pydantic `model`, or one UsageError line naming the file and the field."""
    from pydantic import ValidationError

    from advisor.requirements import validation_message

    from advisor.limits import first_problem
    from advisor.sanitize import plain_fields

    found = first_problem(data)  # the one range table (advisor.limits); nesting bounded there too
    if found:
        raise UsageError(f"{path}: {found}")
    # Free text of a result file (a scaling label, a warning, a data source) reaches Markdown and
    # HTML: on one line, without control characters, from here on (the renderers escape it too).
    data = plain_fields(data, TEXT_FIELDS)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(validation_message(path, exc)) from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to read") from None


# The free-text fields of result files, made plain (one line, printable) when a file is loaded.
TEXT_FIELDS = frozenset(
    {"label_text", "warnings", "source", "data", "label", "note", "message", "error", "likely_cause"}
)


SCALING_HINT = "expected a scaling result from `advisor probe --scaling --json -o FILE`"


def load_scaling_file(path: str) -> ScalingResult:
    """A scaling probe result file, validated as a ScalingResult."""
    data = read_json(path, SCALING_HINT, "--scaling")
    if not isinstance(data, dict) or data.get("kind") != "scaling":
        raise UsageError(f'{path}: kind: expected "scaling" (a probe suite goes to --probes): {SCALING_HINT}')
    from probes.scaling.models import SCHEMA_VERSION, ScalingResult

    if data.get("schema_version") != SCHEMA_VERSION:
        raise UsageError(
            f"{path}: schema_version: {data.get('schema_version')!r}, expected {SCHEMA_VERSION!r}: {SCALING_HINT}"
        )
    return _validated(path, ScalingResult, data)


DEPLOY_HINT = "expected a deployment result from `advisor probe --deploy -o FILE`"
ACCURACY_HINT = "expected an accuracy result from `advisor probe --accuracy --json -o FILE`"
PIPELINE_HINT = "expected an input-pipeline result from `advisor probe --pipeline --json -o FILE`"
GPT_HINT = "expected a transformer-probe result from `advisor probe --models gpt --json -o FILE`"


def load_result(path: str, kind_name: str, hint: str) -> BaseModel:
    """A result file of a registered probe kind (probes.base.KINDS), read with `--<kind> FILE`: its
    `kind`, the major version of its schema, then its Result model."""
    import importlib

    from probes.base import KINDS

    flag = f"--{kind_name}"
    data = read_json(path, hint, flag)
    if not isinstance(data, dict) or data.get("kind") != kind_name:
        got = data.get("kind") if isinstance(data, dict) else None
        raise UsageError(f'{path}: kind: expected "{kind_name}"' + (f", got {got!r}" if got else "") + f": {hint}")
    model = KINDS[kind_name].Result
    current = importlib.import_module(model.__module__).SCHEMA_VERSION
    version = data.get("schema_version", current)
    major = current.split(".")[0]
    if not isinstance(version, str) or version.split(".")[0] != major:
        raise UsageError(f"{path}: schema_version: {str(version)[:20]!r}, expected {major}.x: {hint}")
    return _validated(path, model, data)


def load_deploy_file(path: str) -> DeployResult:
    """A deployment probe result file, validated as a DeployResult."""
    return load_result(path, "deploy", DEPLOY_HINT)


def load_accuracy_file(path: str) -> AccuracySuite:
    suite = load_result(path, "accuracy", ACCURACY_HINT)
    for i, g in enumerate(suite.gaps):
        if len(g.ci95) != 2 or not g.per_seed:
            raise UsageError(f"{path}: gaps[{i}]: expected ci95 [low, high] and per_seed values: {ACCURACY_HINT}")
        if any(abs(x) > 1 for x in [*g.ci95, *g.per_seed, g.mean]):
            raise UsageError(f"{path}: gaps[{i}]: an accuracy gap beyond 1 (accuracies are fractions 0-1)")
    for i, r in enumerate(suite.runs):
        if r.final_accuracy is not None and not 0 <= r.final_accuracy <= 1:
            raise UsageError(f"{path}: runs[{i}].final_accuracy: {r.final_accuracy} is not a fraction 0-1")
    return suite


def load_pipeline_file(path: str) -> PipelineSuite:
    suite = load_result(path, "pipeline", PIPELINE_HINT)
    for i, r in enumerate(suite.runs):
        for name in ("alone", "with_step", "step_only"):
            rate = getattr(r, name)
            if rate is not None and rate.samples_per_second is not None and rate.samples_per_second < 0:
                raise UsageError(
                    f"{path}: runs[{i}].{name}.samples_per_second: {rate.samples_per_second} is negative: "
                    "expected a measured rate >= 0"
                )
    return suite


def load_gpt_file(path: str) -> GptResult:
    result = load_result(path, "gpt", GPT_HINT)
    for i, r in enumerate(result.runs):
        if r.tokens_per_second is not None and not r.tokens_per_second > 0:
            raise UsageError(f"{path}: runs[{i}].tokens_per_second: {r.tokens_per_second}: expected a positive rate")
    for i, d in enumerate(result.dynamic):
        for j, w in enumerate(d.ways):
            for name in ("end_to_end_tokens_per_second", "steady_tokens_per_second"):
                v = getattr(w, name)
                if v is not None and not v > 0:
                    raise UsageError(f"{path}: dynamic[{i}].ways[{j}].{name}: {v}: expected a positive rate")
    return result


# `report --<kind> FILE`: the loader of each probe kind read from one file (the training suites, several
# files, come with --probes)
RESULT_LOADERS: dict[str, Callable[[str], BaseModel]] = {
    "scaling": load_scaling_file,
    "deploy": load_deploy_file,
    "accuracy": load_accuracy_file,
    "pipeline": load_pipeline_file,
    "gpt": load_gpt_file,
}


def _from_cache(load: Callable[[], Optional[Model]], what: str) -> Optional[Model]:
    """This host's cached result, or None: an unreadable cache is skipped with a note, not fatal."""
    try:
        return load()
    except (OSError, ValueError) as exc:  # the cache reader returns None for what it knows; this is the rest
        print(f"advisor: ignoring unreadable {what} cache ({exc})", file=sys.stderr)
        return None


def _fingerprint(suite: ProbeSuite) -> Optional[str]:
    return getattr(getattr(suite, "host", None), "fingerprint", None)


def cached_scaling() -> Optional[ScalingResult]:
    from advisor.cache import load_cached_scaling

    return _from_cache(load_cached_scaling, "scaling")


def collect_host() -> Optional[CheckReport]:
    """This host, quickly: the check without framework smoke tests; None when it cannot run."""
    from advisor.check.host import run_check

    try:
        return run_check(smoke=False, timeout=20.0)
    except Exception as exc:  # the check never should raise; a report must not die of it
        print(f"advisor: host check failed ({exc}); continuing without host details", file=sys.stderr)
        return None


def cached_probes() -> Optional[ProbeSuite]:
    from advisor.cache import load_cached_probes

    return _from_cache(load_cached_probes, "probe")


def run_probes() -> ProbeSuite:
    from probes.training.models import ProbeConfig
    from probes.training.runner import run_suite

    from advisor.progress import probe_progress

    print("advisor: running the probe suite (use `advisor probe` for options)...", file=sys.stderr)
    config = ProbeConfig()
    with probe_progress("training", config) as on_event:  # the one progress display, on stderr
        suite = run_suite(config, on_event=on_event)
    from advisor.sanitize import one_line

    try:
        from advisor.cache import save_probes

        save_probes(suite)
    except (OSError, UsageError) as exc:  # a full or read-only cache folder: keep the raw runs anyway
        from advisor.output import to_json, write_fallback

        where = write_fallback("probe", to_json(suite))
        print(
            f"advisor: warning: the probe results were not cached ({one_line(str(exc))}); "
            f"they are kept in {where} (advisor report --probes FILE reads them)",
            file=sys.stderr,
        )
    return suite


def scan_code(req: Requirements, req_path: str, kb: KnowledgeBase) -> Optional[ScanResult]:
    from advisor.requirements import resolve_code_path

    code = resolve_code_path(req, req_path)
    if code is None:
        return None
    if not code.exists():
        raise UsageError(
            f"{req_path}: model.code_path: {code} does not exist: expected a folder or .py file of PyTorch code"
        )
    from advisor.scan import scan_path

    return scan_path(str(code), kb=kb)


def gather(args: argparse.Namespace) -> tuple[Requirements, KnowledgeBase, Measurements]:
    """Read and validate every input; nothing is written here."""
    from advisor.measurements import Measured, Measurements
    from advisor.validation import load_checked

    kb = load_kb(args.kb)
    req = load_checked(args.requirements, kb)  # every bad field, a line each
    seen: dict[str, str] = {}
    for p in args.probes:  # the same runs twice would count as two measurements
        real = str(Path(p).resolve())
        if real in seen:
            raise UsageError(
                f"{p}: --probes: the same file is given twice (also as {seen[real]}): expected each "
                "probe results file once"
            )
        seen[real] = p
    suites = [load_probe_file(p) for p in args.probes]
    measured: dict[str, Measured] = {}  # probe kind -> its result and where it came from
    for kind, load in RESULT_LOADERS.items():  # --scaling/--deploy/--accuracy/--pipeline/--gpt FILE
        path = getattr(args, kind, None)
        if path:
            measured[kind] = Measured(load(path), "file", path)
    source = "file"
    cached = None
    if args.run_probes:
        suites.append(run_probes())
        source = "run"
    elif not args.no_cache:
        cached = cached_probes()
        same_host = [
            p
            for p, s in zip(args.probes, suites)
            if cached is not None and _fingerprint(s) and _fingerprint(s) == _fingerprint(cached)
        ]
        if same_host:
            # The file measures this host too: merging the cache would list the same runs twice.
            print(
                f"advisor: not using this host's cached probe results: {same_host[0]} measures this host",
                file=sys.stderr,
            )
            cached = None
        if cached is not None:
            print(
                f"advisor: using this host's cached probe results from {getattr(cached, 'created', None) or 'an earlier run'} "
                "(--no-cache to ignore, --run-probes to measure again)",
                file=sys.stderr,
            )
            suites.insert(0, cached)
            source = "cache" if not args.probes else "file"
    if suites:
        measured["training"] = Measured(suites, source, args.probes)
    scaling = None
    if not args.scaling and not args.no_cache:
        scaling = cached_scaling()
        if scaling is not None:
            measured["scaling"] = Measured(scaling, "cache")
            print(
                f"advisor: using this host's cached scaling result from {getattr(scaling, 'created', None) or 'an earlier run'} "
                "(--no-cache to ignore, --scaling FILE for another)",
                file=sys.stderr,
            )
    from advisor.cache import used_runs

    return (
        req,
        kb,
        Measurements(
            host=collect_host(),
            scan=scan_code(req, args.requirements, kb),
            probes=measured,
            cached_runs=used_runs(probes=cached, scaling=scaling),
        ),
    )


# -o FILE's extension picks the format when no flag does; anything else written to a file is JSON.
SUFFIX_FORMATS = {".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def choose_format(args: argparse.Namespace, stdout: Optional[TextIO] = None) -> str:
    """A flag wins; then -o FILE's extension; then human on a terminal (the table), machine elsewhere
    (JSON), like `ls` and `git`."""
    for name in ("json", "markdown", "html", "table"):
        if getattr(args, name, False):
            return name
    if args.output:
        return SUFFIX_FORMATS.get(Path(args.output).suffix.lower(), "json")
    stream = stdout if stdout is not None else sys.stdout
    try:
        return "table" if stream.isatty() else "json"
    except (AttributeError, ValueError):  # a closed or replaced stdout
        return "json"


def run(args: argparse.Namespace) -> int:
    from advisor.output import check_output, emit, regular_target, write_with_companions
    from advisor.render import assets
    from advisor.render import format as render_format
    from advisor.report import build_report

    check_output(args.output)  # a bad -o is refused before any slow work
    req, kb, measurements = gather(args)
    report = build_report(req, measurements, kb=kb)
    fmt = choose_format(args)
    # Charts only beside a regular file (never /dev/stdout.scores.svg), written with the document as
    # one step (write_with_companions): no charts without the document, no document without its charts.
    import warnings

    with warnings.catch_warnings():
        # matplotlib's font and layout warnings are about the chart engine, not the user's input:
        # they must not land on stderr between the tool's own lines.
        warnings.filterwarnings("ignore", module=r"matplotlib(\..*)?$")
        files = assets(report, fmt, args.output if regular_target(args.output) else None, kb=kb)
        text = render_format(report, fmt, kb=kb, assets=files)
    if files:
        write_with_companions(args.output, text, files)
    else:
        emit(text, args.output)
    return 0
