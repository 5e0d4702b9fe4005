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
import os
import stat
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
    from probes.check.models import CheckReport
    from probes.training.models import ProbeSuite

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
    for name, line in file_kinds().items():  # --scaling, --deploy, ... : every kind read from one file
        parser.add_argument(
            f"--{name}",
            dest=name,
            metavar="FILE",
            help=f"{line.label.lower()} result ({probe_command(name)}): {line.summary}",
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
    """The bundled knowledge base merged with ADVISOR_KB_DIR and `extra_dirs`. Bad files are bad input,
    and so are override folders past the work budget (knowledge.budget)."""
    import knowledge
    from knowledge import budget
    from knowledge.loader import user_dirs

    for d in extra_dirs:
        try:
            is_dir = Path(d).is_dir()
        except (OSError, ValueError) as exc:  # a 300-character name, a NUL byte
            raise UsageError(f"{d}: --kb: {getattr(exc, 'strerror', None) or exc}") from None
        if not is_dir:
            raise UsageError(f"{d}: --kb: expected a folder of knowledge-base YAML files")
    try:
        budget.check(user_dirs(extra_dirs))
        return knowledge.load(extra_dirs=extra_dirs or None)
    except knowledge.KnowledgeError as exc:  # already one line naming file, entry and field
        raise UsageError(str(exc)) from None
    except RuntimeError as exc:  # pathlib: ADVISOR_KB_DIR=~nosuchuser/kb
        raise UsageError(f"{home_relative_kb_dir()}: knowledge-base folder: {exc}") from None


def home_relative_kb_dir(extra_dirs: tuple[str, ...] = ()) -> str:
    """The `~user/...` knowledge-base folder pathlib could not expand, for the error line."""
    given = [*os.environ.get("ADVISOR_KB_DIR", "").split(os.pathsep), *extra_dirs]
    return next((d for d in given if d.startswith("~")), "ADVISOR_KB_DIR")


def file_kinds() -> dict:
    """The registered probe kinds (probes.base.KINDS) read with `--<kind> FILE`: every kind but those
    of several results (the training suites: --probes FILE ...)."""
    from advisor.measurements import SEVERAL
    from probes.base import KINDS

    return {name: line for name, line in KINDS.items() if name not in SEVERAL}


def probe_command(kind_name: str) -> str:
    """How a user writes the kind's result file: `advisor probe --scaling --json -o FILE`."""
    from advisor.commands.probe import front

    return f"`advisor probe {front(kind_name).PROBE_FLAG} --json -o FILE`"


def kind_hint(kind_name: str) -> str:
    from probes.base import KINDS

    return f"expected a {KINDS[kind_name].label.lower()} result from {probe_command(kind_name)}"


PROBES_HINT = "expected the JSON written by `advisor probe --json -o FILE`"
# A probe writes a few dozen runs; each costs the report's scoring ~25 ms on this host (2,000 runs took
# a minute, 20,000 over five): more runs than this, in one file or in all of them, is refused.
MAX_RUNS = 256


def load_probe_file(path: str) -> ProbeSuite:
    """One probe results file, validated as a ProbeSuite."""
    data = read_json(path, PROBES_HINT, "--probes")
    if isinstance(data, dict) and isinstance(data.get("kind"), str) and data["kind"] in file_kinds():
        raise UsageError(
            f"{path}: kind: this is a {data['kind']} probe result: pass it with --{data['kind']} FILE "
            f"(--probes {PROBES_HINT})"
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
    return _validated(path, ProbeSuite, data)


def _validated(path: str, model: type[Model], data: dict) -> Model:
    """`data` as the pydantic `model`, or one UsageError line naming the file and the field: the
    range table (advisor.limits) before and after validation (a number written as a string, "NaN"
    or a 30-digit "batch_size", is a number only after it), and a work budget on the runs."""
    from pydantic import ValidationError

    from advisor.limits import first_problem
    from advisor.requirements import validation_message
    from advisor.sanitize import plain_strings

    found = first_problem(data)  # the one range table (advisor.limits); nesting bounded there too
    if found:
        raise UsageError(f"{path}: {found}")
    runs = data.get("runs")
    if isinstance(runs, list) and len(runs) > MAX_RUNS:
        raise UsageError(f"{path}: runs: {len(runs):,} runs: expected at most {MAX_RUNS} (a probe writes a few dozen)")
    # Every string of a result file (a scaling label, a host's CPU model, a warning) reaches Markdown,
    # HTML and the terminal: on one line and without control characters from here on (the renderers
    # escape it for their format too).
    data = plain_strings(data)
    try:
        result = model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(validation_message(path, exc)) from None
    except RecursionError:
        raise UsageError(f"{path}: nested too deeply to read") from None
    found = first_problem(result.model_dump(mode="python"))
    if found:
        raise UsageError(f"{path}: {found}")
    return result


def load_result(path: str, kind_name: str) -> BaseModel:
    """A result file of a registered probe kind (probes.base.KINDS), read with `--<kind> FILE`: its
    `kind`, the major version of its schema, then its Result model and what advisor.result_checks
    asks of the kind."""
    from advisor import result_checks
    from advisor.safe_yaml import clip
    from advisor.sanitize import one_line
    from probes.base import KINDS

    hint = kind_hint(kind_name)
    data = read_json(path, hint, f"--{kind_name}")
    if not isinstance(data, dict) or data.get("kind") != kind_name:
        got = data.get("kind") if isinstance(data, dict) else None
        shown = f", got {clip(one_line(str(got)), 40)!r}" if got else ""
        raise UsageError(f'{path}: kind: expected "{kind_name}"{shown}: {hint}')
    model = KINDS[kind_name].Result
    declared = model.model_fields.get("schema_version")  # the version the kind's model writes
    current = declared.default if declared is not None else None
    if isinstance(current, str):  # a kind that versions its result: the major version must match
        version = data.get("schema_version", current)
        major = current.split(".")[0]
        if not isinstance(version, str) or version.split(".")[0] != major:
            raise UsageError(f"{path}: schema_version: {one_line(str(version))[:20]!r}, expected {major}.x: {hint}")
    result = _validated(path, model, data)
    found = result_checks.first_problem(kind_name, result)
    if found:
        raise UsageError(f"{path}: {found}: {hint}")
    return result


def say(text: str) -> None:
    """One line on stderr about what the command did: on one line and printable (a file name may
    hold a newline, an escape or bytes that are not UTF-8), and a closed stderr is no error."""
    from advisor.sanitize import one_line

    try:
        print(one_line(text), file=sys.stderr)
    except (AttributeError, OSError, ValueError):
        pass


def _from_cache(load: Callable[[], Optional[Model]], what: str) -> Optional[Model]:
    """This host's cached result, or None: an unreadable cache is skipped with a note, not fatal."""
    try:
        return load()
    except (OSError, ValueError) as exc:  # the cache reader returns None for what it knows; this is the rest
        say(f"advisor: ignoring unreadable {what} cache ({exc})")
        return None


def _fingerprint(suite: ProbeSuite) -> Optional[str]:
    return getattr(getattr(suite, "host", None), "fingerprint", None)


def cached_result(kind_name: str) -> Optional[BaseModel]:
    """This host's cached result of a kind read from one file (advisor.cache.CACHED), or None."""
    from advisor.cache import load_cached

    return _from_cache(lambda: load_cached(kind_name), kind_name)


def collect_host() -> Optional[CheckReport]:
    """This host, quickly: the check without framework smoke tests; None when it cannot run."""
    from advisor.check.host import run_check

    try:
        return run_check(smoke=False, timeout=20.0)
    except Exception as exc:  # the check never should raise; a report must not die of it
        say(f"advisor: host check failed ({exc}); continuing without host details")
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

    try:
        from advisor.cache import save_probes

        save_probes(suite)
    except (OSError, UsageError) as exc:  # a full or read-only cache folder: keep the raw runs anyway
        from advisor.output import to_json, write_fallback

        where = write_fallback("probe", to_json(suite))
        say(
            f"advisor: warning: the probe results were not cached ({exc}); "
            f"they are kept in {where} (advisor report --probes FILE reads them)"
        )
    return suite


def scan_code(req: Requirements, req_path: str, kb: KnowledgeBase) -> Optional[ScanResult]:
    from advisor.requirements import resolve_code_path
    from advisor.sanitize import for_terminal

    try:
        code = resolve_code_path(req, req_path)
    except RuntimeError as exc:  # pathlib: `~nosuchuser/...`, a loop of links
        raise UsageError(f"{req_path}: model.code_path: {for_terminal(str(exc))}") from None
    if code is None:
        return None
    try:
        mode = os.stat(code).st_mode
    except FileNotFoundError:
        raise UsageError(
            f"{req_path}: model.code_path: {code} does not exist: expected a folder or .py file of PyTorch code"
        ) from None
    except OSError as exc:
        raise UsageError(f"{req_path}: model.code_path: {code}: {exc.strerror or exc}") from None
    if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):  # a FIFO or /dev/null is not "nothing to migrate"
        raise UsageError(
            f"{req_path}: model.code_path: {code} is not a folder or a file: expected a folder or .py file of PyTorch code"
        )
    from advisor.scan import scan_path

    return scan_path(str(code), kb=kb)


def input_files(args: argparse.Namespace) -> list[str]:
    """Every file the command reads that -o could name: the requirements, the result files and the
    knowledge-base overrides' YAML files."""
    files = [args.requirements, *args.probes, *(getattr(args, k, None) for k in file_kinds())]
    for folder in args.kb:
        try:
            files += [str(p) for p in Path(folder).iterdir() if p.suffix in (".yaml", ".yml")]
        except (OSError, ValueError):
            pass  # load_kb says what is wrong with the folder
    return [f for f in files if f]


def gather(args: argparse.Namespace) -> tuple[Requirements, KnowledgeBase, Measurements]:
    """Read and validate every input; nothing is written here."""
    from advisor.cache import CACHED
    from advisor.measurements import Measured, Measurements

    from advisor.validation import load_checked

    kb = load_kb(args.kb)
    req = load_checked(args.requirements, kb)  # every bad field, a line each
    seen: dict[str, str] = {}
    for p in args.probes:  # the same runs twice would count as two measurements
        real = os.path.realpath(p)  # never raises on a loop of links (the reader says what is wrong)
        if real in seen:
            raise UsageError(
                f"{p}: --probes: the same file is given twice (also as {seen[real]}): expected each "
                "probe results file once"
            )
        seen[real] = p
    suites = [load_probe_file(p) for p in args.probes]
    measured: dict[str, Measured] = {}  # probe kind -> its result and where it came from
    for kind in file_kinds():  # --scaling/--deploy/--accuracy/--pipeline/--gpt FILE: the registry's
        path = getattr(args, kind, None)
        if path:
            measured[kind] = Measured(load_result(path, kind), "file", path)
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
            say(f"advisor: not using this host's cached probe results: {same_host[0]} measures this host")
            cached = None
        if cached is not None:
            say(
                f"advisor: evidence: this host's cached probe results ({len(cached.runs)} runs measured "
                f"{getattr(cached, 'created', None) or 'earlier'}; --no-cache leaves them out, "
                "--run-probes measures again)"
            )
            suites.insert(0, cached)
            source = "cache" if not args.probes else "file"
    total = sum(len(s.runs) for s in suites)
    if total > MAX_RUNS:
        where = ", ".join(args.probes) or "the probe results"
        raise UsageError(f"{where}: --probes: {total:,} runs in all: expected at most {MAX_RUNS} in one report")
    if suites:
        measured["training"] = Measured(suites, source, args.probes)
    used = {}
    for kind in CACHED:  # this host's cached result of a kind no file gave (the scaling probe's)
        if kind in measured or kind not in file_kinds() or args.no_cache:
            continue
        found = cached_result(kind)
        if found is not None:
            measured[kind] = Measured(found, "cache")
            used[kind] = found
            say(
                f"advisor: evidence: this host's cached {kind} result "
                f"(measured {getattr(found, 'created', None) or 'earlier'}; --no-cache leaves it out, "
                f"--{kind} FILE reads another)"
            )
    from advisor.cache import used_runs

    return (
        req,
        kb,
        Measurements(
            host=collect_host(),
            scan=scan_code(req, args.requirements, kb),
            probes=measured,
            cached_runs=used_runs({"training": cached, **used}),
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

    check_output(args.output, input_files(args))  # a bad -o (or one naming an input) before any slow work
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
    if regular_target(args.output):  # a file written where the user looks for it: say so, once
        beside = f" and {len(files)} chart{'s' if len(files) != 1 else ''} beside it" if files else ""
        say(f"advisor: wrote {args.output} ({FORMAT_NAMES[fmt]}){beside}")
    return 0


FORMAT_NAMES = {"json": "JSON", "markdown": "Markdown", "html": "HTML", "table": "a terminal summary"}
