"""The hardening review's held-out catalogue: inputs and faults an adversary would try, none of them already in
tests/fixtures/bad-input or the other hardening tests, across every command. One table; each row is
run the same way and held to the README's rule:

- the exit code it names (2 for bad input, 0 where the input is legal after all);
- for a refusal, one line on stderr, `advisor: error: `, naming the file, field or flag (`needle`),
  with no traceback, no "internal error" and no terminal escape;
- nothing written half-way: the work folder holds exactly what the row put there (plus -o where the
  run succeeds), and the private TMPDIR is empty afterwards;
- bounded: every row runs under a timeout (a subprocess row also under a memory cap).

Rows that need a real process (closed descriptors, environment, rlimits, argv bytes) run the CLI
with `python -m advisor`; the rest call advisor.cli.main in-process, which is fast. Rows that start
a framework are marked slow."""

from __future__ import annotations

import json
import os
import re
import resource
import socket
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "prototype-then-ascend.yaml"
FIX = ROOT / "tests" / "fixtures"
PROBES = FIX / "report" / "probes-cpu.json"
ACCURACY = FIX / "report" / "accuracy-2vcpu.json"
PIPELINE = FIX / "report" / "pipeline-2vcpu.json"
SCALING = FIX / "scaling" / "scaling-2vcpu-lenet.json"
DEPLOY = FIX / "bad-input" / "bases" / "deploy-2vcpu.json"
MEMORY_CAP = 3 * 1024**3  # a row that reads without bounds hits this, not the host


@dataclass
class Row:
    id: str
    setup: Callable[[Path], list]  # makes its inputs under the work folder, returns argv
    needle: str = ""  # must appear in the error line (a regular expression)
    code: int = 2
    sub: bool = False  # run `python -m advisor` in a real process
    env: dict = field(default_factory=dict)
    shell: str = ""  # appended to the command line (redirections)
    rlimit_fsize: int | None = None
    output: str | None = None  # with code 0: this file must exist afterwards
    stderr_empty: bool = False  # with code 0: nothing at all on stderr
    slow: bool = False
    timeout: float = 120
    max_len: int = 800  # the error line; a row whose input is itself longer says so


# --- helpers that build inputs ----------------------------------------------------------------------


def _req(t: Path, old: str, new: str, name: str = "req.yaml") -> str:
    text = EXAMPLE.read_text()
    assert old in text, old
    path = t / name
    path.write_text(text.replace(old, new, 1))
    return str(path)


def _req_bytes(t: Path, data: bytes, name: str = "req.yaml") -> str:
    path = t / name
    path.write_bytes(data)
    return str(path)


def _json(t: Path, base: Path, mutate: Callable[[dict], object], name: str) -> str:
    data = json.loads(base.read_text())
    got = mutate(data)
    path = t / name
    path.write_text(got if isinstance(got, str) else json.dumps(data))
    return str(path)


def _text(t: Path, name: str, text: str | bytes) -> str:
    path = t / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return str(path)


def _kb(t: Path, files: dict) -> str:
    folder = t / "kb"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder)


def _fifo(t: Path, name: str) -> str:
    os.mkfifo(t / name)
    return str(t / name)


def _socket(t: Path, name: str) -> str:
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(t / name))
    s.close()
    return str(t / name)


def _config(t: Path, text: str | bytes) -> dict:
    return {"ADVISOR_CONFIG": _text(t, "config.toml", text)}


def _report(t: Path, *extra: str) -> list:
    return ["report", str(EXAMPLE), "--no-cache", *extra]


def _good_report(t: Path, name: str = "good.json") -> str:
    from advisor.cli import main

    path = t / name
    assert main(["report", str(EXAMPLE), "--no-cache", "--json", "-o", str(path)]) == 0
    return str(path)


def _report_mutated(t: Path, mutate, name: str = "bad.json") -> str:
    good = _good_report(t)
    data = json.loads(Path(good).read_text())
    mutate(data)
    path = t / name
    path.write_text(json.dumps(data))
    return str(path)


def _set(path: str, value):
    """A mutation setting d[a][b]... (a dotted path with [i] indices) to value."""

    def mutate(d):
        parts = re.findall(r"[^.\[\]]+", path)
        node = d
        for p in parts[:-1]:
            node = node[int(p)] if p.isdigit() else node[p]
        last = parts[-1]
        node[int(last) if last.isdigit() else last] = value

    return mutate


def _probes(mutate, name="probes.json"):
    return lambda t: _report(t, "--probes", _json(t, PROBES, mutate, name), "--json")


def _flag_file(flag, base, mutate, name):
    return lambda t: _report(t, flag, _json(t, base, mutate, name), "--json")


# --- the table ----------------------------------------------------------------------------------------

ROWS: list[Row] = []


def row(*args, **kw):
    ROWS.append(Row(*args, **kw))


# requirements: wrong types, extreme values, odd YAML (REQUIREMENTS.yaml of `advisor report`)
for rid, old, new, needle in [
    ("req-size-string", "size: 4", "size: four", "team.size"),
    ("req-size-negative", "size: 4", "size: -3", "team.size"),
    ("req-size-huge", "size: 4", "size: 1000000000", "team.size"),
    ("req-size-list", "size: 4", "size: [4]", "team.size"),
    ("req-size-nan", "size: 4", "size: .nan", "team.size"),
    ("req-size-bool", "size: 4", "size: true", "team.size"),
    ("req-size-null", "size: 4", "size: null", "team.size"),
    ("req-devices-zero", "devices: 8", "devices: 0", "devices"),
    ("req-devices-float", "devices: 8", "devices: 2.5", "devices"),
    ("req-devices-huge", "devices: 8", "devices: 10000000000", "devices"),
    ("req-params-negative", "parameters_millions: 11.7", "parameters_millions: -1", "parameters_millions"),
    ("req-params-inf", "parameters_millions: 11.7", "parameters_millions: .inf", "parameters_millions"),
    ("req-params-1e12", "parameters_millions: 11.7", "parameters_millions: 1e12", "parameters_millions"),
    ("req-params-text", "parameters_millions: 11.7", "parameters_millions: 11.7B", "parameters_millions"),
    ("req-deadline-zero", "deadline_weeks: 16", "deadline_weeks: 0", "deadline_weeks"),
    ("req-deadline-huge", "deadline_weeks: 16", "deadline_weeks: 1e9", "deadline_weeks"),
    ("req-epochs-zero", "epochs: 60", "epochs: 0", "epochs"),
    ("req-epochs-huge", "epochs: 60", "epochs: 1e15", "epochs"),
    ("req-batch-negative", "batch_size: 128", "batch_size: -128", "batch_size"),
    ("req-samples-negative", "dataset_samples: 500000", "dataset_samples: -1", "dataset_samples"),
    ("req-stage-unknown", "stage: prototype", "stage: vapourware", "stage"),
    ("req-pytorch-level-int", "pytorch: proficient", "pytorch: 3", "team.pytorch"),
    ("req-available-string", "available: [nvidia, ascend, cpu]", "available: nvidia", "available"),
    ("req-available-empty", "available: [nvidia, ascend, cpu]", "available: []", "available"),
    ("req-available-tpu", "available: [nvidia, ascend, cpu]", "available: [tpu]", "available"),
    ("req-targets-unknown", "targets: [ascend-server]", "targets: [toaster]", "targets"),
    ("req-targets-mapping", "targets: [ascend-server]", "targets: {a: 1}", "targets"),
    ("req-cuda-ops-text", "custom_cuda_ops: false", "custom_cuda_ops: sometimes", "custom_cuda_ops"),
    ("req-hf-level", "huggingface: nice", "huggingface: 7", "huggingface"),
    ("req-name-list", "name: Retail shelf recognition", "name: [a, b]", "name"),
    ("req-name-mapping", "name: Retail shelf recognition", "name: {a: b}", "name"),
    ("req-family-unknown", "family: cnn", "family: quantum", "family"),
    ("req-team-a-list", "team:\n", "team: []\nteam_was:\n", "team"),
    ("req-int-key", "constraints:\n", "constraints:\n  7: x\n", "constraints"),
    ("req-complex-key", "constraints:\n", "constraints:\n  ? [a, b]\n  : 1\n", "req.yaml"),
    ("req-null-key", "constraints:\n", "constraints:\n  ~: 1\n", "req.yaml"),
    ("req-model-null", "model:\n  family: cnn", "model_x:\n  family: cnn", "model_x"),
]:
    row(
        rid,
        lambda t, o=old, n=new: ["report", _req(t, o, n), "--no-cache", "--json", "-o", str(t / "out.json")],
        needle,
    )

for rid, data, needle in [
    ("req-binary-png", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4, "req.yaml"),
    ("req-tab-indent", b"name: x\nteam:\n\tsize: 4\n", "req.yaml"),
    ("req-unclosed-quote", b'name: "x\nteam: {}\n', "req.yaml"),
    ("req-utf16-no-bom", "name: x\n".encode("utf-16-le"), "req.yaml"),
    ("req-only-comment", b"# nothing here\n", "req.yaml"),
    ("req-just-dashes", b"---\n...\n", "req.yaml"),
    ("req-huge-string", b"name: " + b"x" * (6 * 1024 * 1024) + b"\n", "req.yaml"),
    ("req-many-keys", b"".join(b"k%d: 1\n" % i for i in range(60000)), "req.yaml"),
    ("req-deep-flow", b"name: " + b"[" * 5000 + b"]" * 5000 + b"\n", "req.yaml"),
    (
        "req-anchor-fanout",
        b"a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n"
        b"c: [*b, *b, *b, *b, *b, *b, *b, *b]\n",
        "req.yaml",
    ),
    ("req-date-name", b"name: 2026-01-01\n", "req.yaml"),
    ("req-bom-then-tab", b"\xef\xbb\xbf\tname: x\n", "req.yaml"),
]:
    row(rid, lambda t, d=data: ["report", _req_bytes(t, d), "--no-cache", "--json", "-o", str(t / "out.json")], needle)

row(
    "req-crlf-is-legal",
    lambda t: [
        "report",
        _req_bytes(t, EXAMPLE.read_bytes().replace(b"\n", b"\r\n")),
        "--no-cache",
        "--json",
        "-o",
        str(t / "out.json"),
    ],
    code=0,
    output="out.json",
)
row(
    "req-bom-is-legal",
    lambda t: [
        "report",
        _req_bytes(t, b"\xef\xbb\xbf" + EXAMPLE.read_bytes()),
        "--no-cache",
        "--json",
        "-o",
        str(t / "out.json"),
    ],
    code=0,
    output="out.json",
)
row("req-is-a-directory", lambda t: ["report", str(t), "--no-cache", "--json"], "folder|not a regular file")
row("req-is-a-fifo", lambda t: ["report", _fifo(t, "req.yaml"), "--no-cache", "--json"], "req.yaml")
row("req-is-a-socket", lambda t: ["report", _socket(t, "req.yaml"), "--no-cache", "--json"], "req.yaml")
row("req-empty-name", lambda t: ["report", "", "--no-cache", "--json"], "requirements|''|file")
row(
    "req-path-5000-chars",
    lambda t: ["report", "/" + "/".join(["d" * 200] * 25) + "/r.yaml", "--json"],
    "File name too long|No such file",
    max_len=6000,
)
row("req-non-utf8-name", lambda t: ["report", str(t / "r\udcff.yaml"), "--no-cache", "--json"], "r.*yaml")
row(
    "req-under-a-file", lambda t: ["report", _text(t, "plain", "x") + "/r.yaml", "--no-cache", "--json"], "plain/r.yaml"
)

# --probes and the other result files: wrong types, extreme values, kinds swapped
for rid, mutate, needle in [
    ("probes-runs-mapping", _set("runs", {}), "runs"),
    ("probes-run-null", _set("runs[0]", None), r"runs\[0\]"),
    ("probes-framework-tf", _set("runs[0].framework", "tensorflow"), r"runs\[0\]\.framework"),
    ("probes-batch-zero", _set("runs[0].batch_size", 0), r"runs\[0\]\.batch_size"),
    ("probes-status-odd", _set("runs[0].status", "sort of"), r"runs\[0\]\.status"),
    ("probes-ips-text", _set("runs[0].images_per_second", "fast"), r"runs\[0\]\.images_per_second"),
    ("probes-ci-text", _set("runs[0].ci95", ["a", "b"]), r"runs\[0\]\.ci95"),
    ("probes-step-text", _set("runs[0].step_time_ms", "quick"), r"runs\[0\]\.step_time_ms"),
    ("probes-warnings-int", _set("warnings", 5), "warnings"),
    (
        "probes-1e999",
        lambda d: json.dumps(d).replace('"images_per_second": 17777.78', '"images_per_second": 1e999', 1),
        "images_per_second",
    ),
    (
        "probes-minus-1e999",
        lambda d: json.dumps(d).replace('"peak_memory_mb": 260.0', '"peak_memory_mb": -1e999', 1),
        "peak_memory_mb",
    ),
    ("probes-a-list", lambda d: "[1, 2, 3]", "probes.json"),
    ("probes-a-string", lambda d: '"runs"', "probes.json"),
    ("probes-bom", lambda d: "\ufeff" + json.dumps(d), "probes.json"),
    ("probes-trailing-garbage", lambda d: json.dumps(d) + "\x00\x00garbage", "probes.json"),
    ("probes-schema-int", _set("schema_version", 1), "schema_version"),
    ("probes-gemm-text", _set("gemm_peak", "lots"), "gemm_peak"),
    ("probes-host-list", _set("host", [1, 2]), "host"),
    ("probes-many-runs", lambda d: d.update(runs=d["runs"] * 20000), "bytes"),
]:
    row(rid, _probes(mutate), needle)

for rid, flag, base, mutate, needle in [
    ("scaling-kind-deploy", "--scaling", SCALING, _set("kind", "deploy"), "kind"),
    ("scaling-ranks-zero", "--scaling", SCALING, _set("runs[0].ranks", 0), r"runs\[0\]\.ranks"),
    ("scaling-ranks-huge", "--scaling", SCALING, _set("runs[0].ranks", 10**9), r"runs\[0\]\.ranks"),
    ("scaling-step-negative", "--scaling", SCALING, _set("runs[0].step_ms", -4.0), r"runs\[0\]\.step_ms"),
    ("scaling-label-mapping", "--scaling", SCALING, _set("label_text", {"a": 1}), "label_text"),
    ("scaling-runs-null", "--scaling", SCALING, _set("runs", None), "runs"),
    ("accuracy-kind-pipeline", "--accuracy", ACCURACY, _set("kind", "pipeline"), "kind"),
    ("accuracy-over-one", "--accuracy", ACCURACY, _set("runs[0].final_accuracy", 7.5), "final_accuracy"),
    ("accuracy-seconds-negative", "--accuracy", ACCURACY, _set("runs[0].seconds", -1), r"runs\[0\]\.seconds"),
    ("accuracy-data-list", "--accuracy", ACCURACY, _set("data", [1]), "data"),
    ("accuracy-config-null", "--accuracy", ACCURACY, _set("config", None), "config"),
    ("pipeline-kind-accuracy", "--pipeline", PIPELINE, _set("kind", "accuracy"), "kind"),
    ("pipeline-workers-negative", "--pipeline", PIPELINE, _set("runs[0].workers", -2), "workers"),
    ("pipeline-alone-text", "--pipeline", PIPELINE, _set("runs[0].alone", "slow"), r"runs\[0\]\.alone"),
    ("pipeline-samples-negative", "--pipeline", PIPELINE, _set("data.samples", -5), "samples"),
    ("deploy-kind-scaling", "--deploy", DEPLOY, _set("kind", "scaling"), "kind"),
    ("deploy-serves-mapping", "--deploy", DEPLOY, _set("serves", {}), "serves"),
    ("deploy-latency-text", "--deploy", DEPLOY, _set("serves[0].latency_ms", "low"), r"serves\[0\]\.latency_ms"),
    ("deploy-status-odd", "--deploy", DEPLOY, _set("serves[0].status", "meh"), r"serves\[0\]\.status"),
    ("deploy-export-size-negative", "--deploy", DEPLOY, _set("exports[0].size_bytes", -5), r"exports\[0\]\.size_bytes"),
    ("deploy-parity-text", "--deploy", DEPLOY, _set("parity", "fine"), "parity"),
]:
    row(rid, _flag_file(flag, base, mutate, Path(base).name), needle)

row("probes-a-directory", lambda t: _report(t, "--probes", str(t), "--json"), "folder|not a regular file")
row("probes-a-fifo", lambda t: _report(t, "--probes", _fifo(t, "p.json"), "--json"), "p.json")
row("deploy-a-requirements-file", lambda t: _report(t, "--deploy", str(EXAMPLE), "--json"), "prototype-then-ascend")
row("accuracy-empty-file", lambda t: _report(t, "--accuracy", _text(t, "a.json", ""), "--json"), "a.json")
row(
    "pipeline-binary",
    lambda t: _report(t, "--pipeline", _text(t, "p.json", os.urandom(0) + b"\xff\xfe\x00{"), "--json"),
    "p.json",
)
row(
    "scaling-sparse-1gb", lambda t: _report(t, "--scaling", _sparse(t, "s.json", 1 << 30), "--json"), "s.json", sub=True
)


def _sparse(t: Path, name: str, size: int) -> str:
    with open(t / name, "wb") as fh:
        fh.truncate(size)
    return str(t / name)


# --kb overrides
for rid, files, needle in [
    ("kb-entry-without-id", {"accelerators.yaml": "accelerators:\n  - name: x\n"}, "accelerators.yaml"),
    ("kb-section-a-mapping", {"accelerators.yaml": "accelerators: {id: x}\n"}, "accelerators.yaml"),
    (
        "kb-value-text",
        {
            "accelerators.yaml": "accelerators:\n  - id: ascend-910b\n    memory_gb: {value: lots, "
            "source: x, confidence: blog}\n"
        },
        "memory_gb",
    ),
    (
        "kb-confidence-odd",
        {
            "accelerators.yaml": "accelerators:\n  - id: ascend-910b\n    memory_gb: {value: 64, "
            "source: x, confidence: trust-me}\n"
        },
        "confidence",
    ),
    ("kb-list-top", {"accelerators.yaml": "- 1\n- 2\n"}, "accelerators.yaml"),
    ("kb-binary", {"accelerators.yaml": "\x00\x01\x02binary"}, "accelerators.yaml"),
    ("kb-unknown-section", {"x.yaml": "spaceships:\n  - id: a\n"}, "x.yaml"),
    (
        "kb-tdp-negative",
        {
            "accelerators.yaml": "accelerators:\n  - id: ascend-910b\n    tdp_w: {value: -300, "
            "source: x, confidence: blog}\n"
        },
        "tdp_w",
    ),
    (
        "kb-fp16-nan",
        {
            "accelerators.yaml": "accelerators:\n  - id: ascend-910b\n    fp16_tflops: {value: .nan, "
            "source: x, confidence: blog}\n"
        },
        "fp16_tflops",
    ),
]:
    row(rid, lambda t, f=files: _report(t, "--kb", _kb(t, f), "--json", "-o", str(t / "out.json")), needle)

row(
    "kb-id-10k-chars",
    lambda t: _report(
        t, "--kb", _kb(t, {"accelerators.yaml": "accelerators:\n  - id: " + "a" * 10000 + "\n"}), "--json"
    ),
    "accelerators.yaml",
    max_len=1200,  # the id is clipped to 120 characters in the error line (knowledge.loader._clip)
)
row("kb-a-file", lambda t: _report(t, "--kb", _text(t, "kbfile", "x"), "--json"), "kbfile")
row("kb-holds-a-fifo", lambda t: _report(t, "--kb", _kb_with_fifo(t), "--json"), "a.yaml")


def _kb_with_fifo(t: Path) -> str:
    folder = t / "kb"
    folder.mkdir()
    os.mkfifo(folder / "a.yaml")
    return str(folder)


row("kb-show-escape-id", lambda t: ["kb", "show", "\x1b[2Jnope"], "nope")
row("kb-stale-months-negative", lambda t: ["kb", "stale", "--months", "-1"], "months")
row("kb-stale-months-huge", lambda t: ["kb", "stale", "--months", "99999999999999999999"], "months")
row("kb-stale-today-odd", lambda t: ["kb", "stale", "--today", "2026-13-45"], "today")
row("kb-stale-section-odd", lambda t: ["kb", "stale", "--section", "spaceships"], "spaceships")
row("kb-env-dir-missing", lambda t: ["kb", "list"], "nowhere", sub=True, env={"ADVISOR_KB_DIR": "/nowhere/kb"})

# config.toml (ADVISOR_CONFIG)
for rid, text, needle in [
    ("config-budget-negative", "[probe]\nbudget = -1\n", "budget"),
    ("config-budget-nan", "[probe]\nbudget = nan\n", "budget"),
    ("config-budget-inf", "[probe]\nbudget = inf\n", "budget"),
    ("config-budget-text", '[probe]\nbudget = "long"\n', "budget"),
    ("config-threads-zero", "[probe]\nthreads = 0\n", "threads"),
    ("config-format-pdf", '[report]\nformat = "pdf"\n', "format"),
    ("config-kb-int", "[report]\nkb = 5\n", "kb"),
    ("config-section-a-value", "probe = 3\n", "probe"),
    ("config-binary", b"\xff\xfe\x00\x01", "config.toml"),
    ("config-datetime", "[probe]\nbudget = 1979-05-27T07:32:00Z\n", "budget"),
    ("config-array-of-tables", "[[probe]]\nbudget = 1\n", "probe"),
]:
    row(rid, lambda t, x=text: _config_row(t, x), needle, sub=True, env={"ADVISOR_CONFIG": "{t}/config.toml"})

row("config-a-directory", lambda t: ["config"], "folder|not a regular file", sub=True, env={"ADVISOR_CONFIG": "/tmp"})
row("config-empty-env-is-default", lambda t: ["config", "--path"], code=0, sub=True, env={"ADVISOR_CONFIG": ""})

# check
row("check-timeout-negative", lambda t: ["check", "--timeout", "-1"], "timeout")
row("check-timeout-nan", lambda t: ["check", "--timeout", "nan"], "timeout")
row("check-o-full", lambda t: ["check", "--no-smoke", "--json", "-o", "/dev/full"], "/dev/full")
row("check-o-a-directory", lambda t: ["check", "--no-smoke", "--json", "-o", str(t)], "work")
row(
    "check-o-under-a-file",
    lambda t: ["check", "--no-smoke", "--json", "-o", _text(t, "f", "x") + "/c.json"],
    "f/c.json",
)

# probe options (refused before any framework starts)
for rid, argv, needle in [
    ("probe-budget-inf", ["--budget", "inf"], "budget"),
    ("probe-budget-huge", ["--budget", "1e300"], "budget"),
    ("probe-batch-zero", ["--batch-size", "0"], "batch-size"),
    ("probe-batch-huge", ["--batch-size", "100000000"], "batch-size"),
    ("probe-repeat-zero", ["--repeat", "0"], "repeat"),
    ("probe-repeat-huge", ["--repeat", "1000000"], "repeat"),
    ("probe-frameworks-tf", ["--frameworks", "tensorflow"], "frameworks"),
    ("probe-models-vgg", ["--models", "vgg"], "models"),
    ("probe-models-gpt-and-lenet", ["--models", "gpt,lenet"], "gpt"),
    ("probe-modes-odd", ["--modes", "turbo"], "modes"),
    ("probe-gpt-layers-zero", ["--models", "gpt", "--gpt-layers", "0"], "gpt-layers"),
    ("probe-gpt-heads-divide", ["--models", "gpt", "--gpt-hidden", "30", "--gpt-heads", "4"], "gpt-h"),
    ("probe-gpt-seq-huge", ["--models", "gpt", "--gpt-seq", "100000000"], "gpt-seq"),
    ("probe-gpt-vocab-zero", ["--models", "gpt", "--gpt-vocab", "0"], "gpt-vocab"),
    ("probe-dynamic-odd", ["--models", "gpt", "--dynamic", "wobbly"], "dynamic"),
    ("probe-dynamic-steps-zero", ["--models", "gpt", "--dynamic", "eager", "--dynamic-steps", "0"], "dynamic-steps"),
    ("probe-data-missing", ["--data", "/nowhere/cifar"], "/nowhere/cifar"),
    ("probe-scaling-ranks-text", ["--scaling", "--ranks", "a,b"], "ranks"),
    ("probe-scaling-ranks-zero", ["--scaling", "--ranks", "0"], "ranks"),
    ("probe-scaling-ranks-huge", ["--scaling", "--ranks", "100000"], "ranks"),
    ("probe-scaling-steps-zero", ["--scaling", "--scaling-steps", "0"], "scaling-steps"),
    ("probe-node-rank-beyond", ["--scaling", "--nnodes", "2", "--node-rank", "5", "--master", "h:29500"], "node-rank"),
    ("probe-master-port-huge", ["--scaling", "--nnodes", "2", "--node-rank", "0", "--master", "h:99999"], "master"),
    (
        "probe-rdzv-negative",
        ["--scaling", "--nnodes", "2", "--node-rank", "0", "--master", "h:29500", "--rendezvous-timeout", "-1"],
        "rendezvous-timeout",
    ),
    ("probe-accuracy-epochs-zero", ["--accuracy", "--epochs", "0"], "epochs"),
    ("probe-accuracy-target-two", ["--accuracy", "--target", "2"], "target"),
    ("probe-accuracy-seeds-text", ["--accuracy", "--seeds", "x"], "seeds"),
    ("probe-pipeline-workers-negative", ["--pipeline", "--loader-workers", "-1"], "loader-workers"),
    ("probe-pipeline-feed-text", ["--pipeline", "--feed", "fast"], "feed"),
    ("probe-pipeline-feed-zero", ["--pipeline", "--feed", "0x0"], "feed"),
    ("probe-deploy-batch-sizes-zero", ["--deploy", "--batch-sizes", "0"], "batch-sizes"),
    ("probe-deploy-batch-sizes-text", ["--deploy", "--batch-sizes", "a,b"], "batch-sizes"),
    ("probe-deploy-and-accuracy", ["--deploy", "--accuracy"], "deploy|accuracy"),
]:
    row(rid, lambda t, a=argv: ["probe", *a], needle)

# --data for the pipeline and accuracy probes: the same bounded readers, refused before any worker
row("probe-pipeline-data-fifo", lambda t: ["probe", "--pipeline", "--data", _fifo(t, "cifar")], "cifar")
row("probe-pipeline-data-empty-folder", lambda t: ["probe", "--pipeline", "--data", _empty_dir(t)], "data")
row(
    "probe-accuracy-data-a-file",
    lambda t: ["probe", "--accuracy", "--data", _text(t, "d.bin", b"\x00" * 3073)],
    "d.bin",
)
row("probe-data-cifar-truncated", lambda t: ["probe", "--data", _cifar_truncated(t)], "data_batch_1")


def _empty_dir(t: Path) -> str:
    (t / "data").mkdir()
    return str(t / "data")


def _cifar_truncated(t: Path) -> str:
    folder = t / "cifar-10-batches-bin"
    folder.mkdir()
    (folder / "data_batch_1.bin").write_bytes(b"\x03" + b"\x00" * 100)  # one label byte, 100 of 3,072 pixels
    return str(folder)


# scan
row("scan-dev-null", lambda t: ["scan", "/dev/null"], "/dev/null")
row("scan-socket", lambda t: ["scan", _socket(t, "s.py")], "s.py")
row("scan-bad-glob", lambda t: ["scan", str(_tree(t)), "--exclude", "[", "--json"], code=0)
row("scan-binary-py", lambda t: ["scan", _text(t, "b.py", os.urandom(4096) + b"\x00"), "--json"], "b.py")
row("scan-nul-py", lambda t: ["scan", _text(t, "n.py", "import torch\x00\n"), "--json"], "n.py")
row(
    "scan-latin1-py",
    lambda t: ["scan", _text(t, "l.py", "# caf\xe9\nimport torch\n".encode("latin-1")), "--json"],
    code=0,
)
row("scan-cr-only-py", lambda t: ["scan", _text(t, "c.py", "import torch\rx = torch.ones(1)\r"), "--json"], code=0)
row(
    "scan-one-line-5mb",
    lambda t: ["scan", _text(t, "w.py", "x = " + "1 + " * 1_300_000 + "1\n"), "--json"],
    "w.py",
    timeout=180,
)
row("scan-notebook-cells-null", lambda t: ["scan", _text(t, "n.ipynb", '{"cells": null}'), "--json"], "n.ipynb")
row(
    "scan-notebook-source-dict",
    lambda t: ["scan", _text(t, "n.ipynb", '{"cells": [{"cell_type": "code", "source": {"a": 1}}]}'), "--json"],
    code=0,
)
row("scan-notebook-binary", lambda t: ["scan", _text(t, "n.ipynb", b"\x89PNG\x00\x00"), "--json"], "n.ipynb")
row("scan-symlink-loop", lambda t: ["scan", _loop(t), "--json"], code=0)
row("scan-dir-named-py", lambda t: ["scan", _dir_py(t), "--json"], code=0)
row("scan-o-full", lambda t: ["scan", str(_tree(t)), "--json", "-o", "/dev/full"], "/dev/full")
row("scan-by-odd", lambda t: ["scan", ".", "--by", "line"], "by")


def _tree(t: Path) -> Path:
    src = t / "src"
    src.mkdir(exist_ok=True)
    (src / "m.py").write_text("import torch\nx = torch.ones(2).cuda()\n")
    return src


def _loop(t: Path) -> str:
    src = _tree(t)
    (src / "loop").symlink_to(src)
    (src / "a").symlink_to(src / "b")
    (src / "b").symlink_to(src / "a")
    return str(src)


def _dir_py(t: Path) -> str:
    src = _tree(t)
    (src / "pkg.py").mkdir()
    return str(src)


# compare
row("compare-same-file", lambda t: ["compare", _good_report(t), str(t / "good.json")], code=0)
row("compare-requirements-yaml", lambda t: ["compare", str(EXAMPLE), _good_report(t)], "prototype-then-ascend")
row("compare-a-directory", lambda t: ["compare", str(t), _good_report(t)], "folder|not a regular file")
row(
    "compare-workflows-text",
    lambda t: ["compare", _good_report(t), _report_mutated(t, _set("workflows", "x"))],
    code=0,  # compare diffs two JSON documents of a known schema_version: a changed value, not an error
)
row(
    "compare-recommendation-null",
    lambda t: ["compare", _good_report(t), _report_mutated(t, _set("recommendation", None))],
    "bad.json",
)
row("compare-o-full", lambda t: ["compare", _good_report(t), str(t / "good.json"), "-o", "/dev/full"], "/dev/full")

# output targets (-o) and the charts beside them
row("o-empty-string", lambda t: _report(t, "--json", "-o", ""), "-o|output")
row("o-existing-directory", lambda t: _report(t, "--json", "-o", str(t)), "folder|not a regular file")
row("o-non-utf8-name", lambda t: _report(t, "--json", "-o", str(t / "r\udcff.json")), code=0, output="r\udcff.json")
row("o-markdown-full", lambda t: _report(t, "--markdown", "-o", "/dev/full"), "/dev/full")
row("o-html-under-a-file", lambda t: _report(t, "--html", "-o", _text(t, "f", "x") + "/r.html"), "f/r.html")
row("o-proc-file", lambda t: _report(t, "--json", "-o", "/proc/version"), "/proc/version")
row("o-markdown-fsize", lambda t: _report(t, "--markdown", "-o", str(t / "r.md")), "r.md", sub=True, rlimit_fsize=4096)
row("o-json-fsize", lambda t: _report(t, "--json", "-o", str(t / "r.json")), "r.json", sub=True, rlimit_fsize=1024)

# environments and closed descriptors (real processes)
row(
    "env-home-unset",
    lambda t: _report(t, "--json", "-o", str(t / "r.json")),
    code=0,
    sub=True,
    env={"HOME": None},
    output="r.json",
    stderr_empty=True,
)
row(
    "env-home-a-file-check",
    lambda t: _homefile(t) + ["check", "--no-smoke", "--json", "-o", str(t / "c.json")],
    code=0,
    sub=True,
    env={"HOME": "{t}/homefile", "XDG_CACHE_HOME": None, "ORT_DISABLE_TELEMETRY": None},  # ORT: a device id under HOME
    output="c.json",
    stderr_empty=True,
)
row(
    "env-home-a-file-markdown",
    lambda t: _homefile(t) + _report(t, "--markdown", "-o", str(t / "r.md")),
    code=0,
    sub=True,
    env={"HOME": "{t}/homefile", "MPLCONFIGDIR": None, "XDG_CONFIG_HOME": None},  # matplotlib's config under HOME
    output="r.md",
    stderr_empty=True,
)
row(
    "env-lang-c-table",
    lambda t: _report(t, "--table"),
    code=0,
    sub=True,
    env={"LANG": "C", "LC_ALL": "C"},
    stderr_empty=True,
)
row("env-term-dumb-table", lambda t: _report(t, "--table"), code=0, sub=True, env={"TERM": "dumb"}, stderr_empty=True)
row(
    "env-columns-junk",
    lambda t: _report(t, "--table"),
    code=0,
    sub=True,
    env={"COLUMNS": "-5", "LINES": "abc"},
    stderr_empty=True,
)
row(
    "env-xdg-cache-a-file",
    lambda t: _homefile(t) + ["report", str(EXAMPLE), "--json", "-o", str(t / "r.json")],
    code=0,
    sub=True,
    env={"XDG_CACHE_HOME": "{t}/homefile"},
    output="r.json",
)
row(
    "env-tmpdir-missing",
    lambda t: _report(t, "--markdown", "-o", str(t / "r.md")),
    code=0,
    sub=True,
    env={"TMPDIR": "/nowhere/tmp"},
    output="r.md",
)
row("env-stdout-closed-report", lambda t: _report(t, "--json"), "stdout", sub=True, shell=" >&-")
row("env-stdout-closed-scan", lambda t: ["scan", str(_tree(t)), "--json"], "stdout", sub=True, shell=" >&-")
row("env-stdout-closed-kb", lambda t: ["kb", "list"], "stdout", sub=True, shell=" >&-")
row("env-stdout-closed-check", lambda t: ["check", "--no-smoke", "--json"], "stdout", sub=True, shell=" >&-")
row("env-stdout-full-report", lambda t: _report(t, "--json"), "stdout", sub=True, shell=" >/dev/full")
row("env-stdout-full-completion", lambda t: ["completion", "zsh"], "stdout", sub=True, shell=" >/dev/full")
row("env-both-closed-bad-input", lambda t: ["report", "/nowhere.yaml"], code=2, sub=True, shell=" >&- 2>&-")
row(
    "env-tui-requirements-missing",
    lambda t: ["tui", "--requirements", "/nowhere.yaml"],
    "terminal",
    sub=True,
    shell=" <&-",
)
row("env-tui-stdin-devnull", lambda t: ["tui"], "terminal", sub=True, shell=" </dev/null")
row("env-argv-non-utf8", lambda t: ["report", "__BYTES__"], "yaml", sub=True)


def _homefile(t: Path) -> list:
    (t / "homefile").write_text("not a folder")
    return []


def _config_row(t: Path, text) -> list:
    _text(t, "config.toml", text)
    return ["config"]


def _prepare_env(r: Row, t: Path) -> dict:
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = str(t.parent / "cache")
    env["TMPDIR"] = str(t.parent / "tmp")
    env["PYTHONPATH"] = str(ROOT)  # this tree, not whatever `advisor` the venv would import from cwd
    # No .pyc writes: under RLIMIT_FSIZE (and a full disk) CPython renames a silently truncated .pyc into
    # the tree, and every later import of that module fails with "marshal data too short".
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for k, v in r.env.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v.replace("{t}", str(t))
    return env


def _snapshot(t: Path) -> set:
    return {str(p.relative_to(t)) for p in t.rglob("*")}


def _limits(fsize):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return apply


def _run_sub(r: Row, argv: list, t: Path):
    env = _prepare_env(r, t)
    if argv == ["report", "__BYTES__"]:
        argv = ["report", os.fsdecode(b"/nowhere/r\xff.yaml")]
    cmd = [sys.executable, "-m", "advisor", *argv]
    if r.shell:
        import shlex

        proc = subprocess.run(
            ["/bin/sh", "-c", " ".join(shlex.quote(os.fsencode(a).decode("latin-1")) for a in cmd) + r.shell],
            capture_output=True,
            timeout=r.timeout,
            cwd=t,
            env=env,
            preexec_fn=_limits(r.rlimit_fsize),
        )
    else:
        proc = subprocess.run(
            cmd, capture_output=True, timeout=r.timeout, cwd=t, env=env, preexec_fn=_limits(r.rlimit_fsize)
        )
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


class WorkerStarted(BaseException):
    """Not an Exception: the CLI's last-line handler must not turn it into an error line."""


def _no_process(*args, **kw):
    raise WorkerStarted(f"the option was accepted and a process started: {args[0]!r}")


def _run_inproc(r: Row, argv: list, t: Path, monkeypatch, capsys):
    from advisor.cli import main

    monkeypatch.chdir(t)
    monkeypatch.setenv("XDG_CACHE_HOME", str(t.parent / "cache"))
    monkeypatch.setenv("TMPDIR", str(t.parent / "tmp"))
    monkeypatch.setattr(tempfile, "tempdir", str(t.parent / "tmp"))
    if argv[:1] == ["probe"]:  # refused before any worker: a started process fails the row
        monkeypatch.setattr(subprocess, "Popen", _no_process)
    capsys.readouterr()
    code = main(argv)
    _, err = capsys.readouterr()
    return code, err


PARAMS = [pytest.param(r, id=r.id, marks=[pytest.mark.slow] if r.slow else []) for r in ROWS]


@pytest.mark.parametrize("r", PARAMS)
def test_held_out_catalogue(r: Row, tmp_path, monkeypatch, capsys):
    t = tmp_path / "work"
    t.mkdir()
    (tmp_path / "tmp").mkdir()
    argv = r.setup(t)
    before = _snapshot(t)
    if r.sub:
        code, err = _run_sub(r, argv, t)
    else:
        code, err = _run_inproc(r, argv, t, monkeypatch, capsys)
    assert code == r.code, err
    assert "Traceback" not in err and "internal error" not in err and "\x1b" not in err, err
    after = _snapshot(t)
    if r.code == 2:
        if "2>&-" not in r.shell:
            assert err.count("\n") == 1 and err.startswith("advisor: error: "), err
            assert len(err) < r.max_len, err
            assert re.search(r.needle, err), (r.needle, err)
        else:
            assert err == ""
        assert after == before, after - before
    else:
        if r.output:
            assert r.output in after and os.path.getsize(t / r.output) > 0
        assert after - before <= {r.output} | {
            a for a in after if r.output and a.startswith(r.output.rsplit(".", 1)[0])
        }
        if r.stderr_empty:  # nothing but the line saying which file -o wrote
            assert [line for line in err.splitlines() if not line.startswith("advisor: wrote ")] == [], err
    assert os.listdir(tmp_path / "tmp") == [], os.listdir(tmp_path / "tmp")


def test_the_catalogue_is_large_and_has_unique_ids():
    ids = [r.id for r in ROWS]
    assert len(ids) == len(set(ids))
    assert len(ROWS) >= 100


# --- faults during a real measurement (framework-running: slow) -----------------------------------------

QUICK_PROBE = [
    "probe",
    "--frameworks",
    "pytorch",
    "--models",
    "lenet",
    "--modes",
    "eager",
    "--budget",
    "1",
    "--repeat",
    "1",
    "--max-repeat",
    "1",
    "--no-parity",
    "--no-tune",
    "--threads",
    "1",
]


def _children_running(parent: int, needle: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == parent and needle in cmd:
            found.append(int(entry))
    return found


@pytest.mark.slow
def test_a_worker_killed_by_sigkill_is_a_failed_run_with_its_reason(tmp_path):
    import signal
    import time

    out = tmp_path / "probe.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "cache"), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", *QUICK_PROBE, "-o", str(out)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        workers: list[int] = []
        while not workers and time.monotonic() < deadline and proc.poll() is None:
            workers = _children_running(proc.pid, "probes.training.worker_torch run")
            time.sleep(0.05)
        assert workers, "the worker never started"
        os.kill(workers[0], signal.SIGKILL)
        _, err = proc.communicate(timeout=180)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "Traceback" not in err and "internal error" not in err, err
    doc = json.loads(out.read_text())  # the failed run is a result too, written to -o
    run = next(r for r in doc["runs"] if r["mode"] == "eager")
    assert run["status"] == "failed" and "SIGKILL" in (run.get("error") or ""), run
    assert [p for p in os.listdir(tmp_path) if p.startswith("advisor-")] == []  # its temp folder went too


@pytest.mark.slow
def test_a_measurement_that_no_file_can_take_still_reaches_the_user(tmp_path):
    """RLIMIT_FSIZE of 2 KB: -o, the cache and the fallback file all fail (EFBIG); the JSON goes to
    stderr, the last resort the fallback names. Nothing half-written stays behind."""
    out = tmp_path / "probe.json"
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "TMPDIR": str(tmp_path / "tmp"),
        "HOME": str(tmp_path / "home"),
        "PYTHONDONTWRITEBYTECODE": "1",  # under RLIMIT_FSIZE a .pyc write would be truncated into the tree
    }
    (tmp_path / "tmp").mkdir()
    (tmp_path / "home").mkdir()

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    proc = subprocess.run(
        [sys.executable, "-m", "advisor", *QUICK_PROBE, "-o", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=small_files,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    start = proc.stderr.index("{")
    doc, _ = json.JSONDecoder().raw_decode(proc.stderr[start:])
    assert any(r["status"] == "ok" and r["images_per_second"] > 0 for r in doc["runs"]), doc["runs"]
    assert "stderr" in proc.stderr  # the message says where the result went
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.stat().st_size]
    # The host's timing record (how long this probe took, for the next estimate) is a few hundred
    # bytes and fits under the limit: it is written whole, never half.
    timings = [p for p in files if p.name.startswith("probes-timings-")]
    for p in timings:
        json.loads(p.read_text())
    leftovers = [p for p in files if p not in timings]
    assert leftovers == [], leftovers  # no partial -o, cache entry or fallback file


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_the_json_reader_itself_refuses_non_finite_constants(tmp_path, constant):
    """The range table (advisor.limits) refuses a non-finite number later too; the reader must not
    depend on it (a reader whose caller skips the table, such as a future kind)."""
    from advisor.errors import UsageError
    from advisor.output import read_json

    path = tmp_path / "r.json"
    path.write_text('{"runs": [{"x": %s}]}' % constant)
    with pytest.raises(
        UsageError, match=rf"r.json: runs\[0\]\.x: invalid value: {constant} is not a number JSON allows"
    ):
        read_json(str(path), "expected a result file")
