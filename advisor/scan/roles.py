"""Where a file sits in the project (model, training loop, data pipeline, deployment, tests, examples,
tools) and which files are left out of the total (tests, examples and tools by default, plus
`--exclude GLOB`)."""

from __future__ import annotations

import fnmatch
import re

# Shown apart and excluded from the total unless the user asks otherwise (the work is real but it is
# not what must run on MindSpore).
DEFAULT_EXCLUDES = (
    "tests/**",
    "test/**",
    "**/tests/**",
    "**/test/**",
    "test_*.py",
    "**/test_*.py",
    "*_test.py",
    "**/*_test.py",
    "conftest.py",
    "**/conftest.py",
    "examples/**",
    "**/examples/**",
    "tools/**",
    "scripts/**",
    "benchmarks/**",
    "docs/**",
    "demo/**",
    "demos/**",
    # tutorials and notebooks teach, they are not the product: priced apart (a project that is nothing
    # but tutorials is priced as such, see scan_path)
    "tutorials/**",
    "**/tutorials/**",
    "notebooks/**",
    "**/notebooks/**",
    "*.ipynb",
    "**/*.ipynb",
)
TUTORIAL_EXCLUDES = ("examples/**", "**/examples/**", "demo/**", "demos/**") + DEFAULT_EXCLUDES[-6:]
PATH_ROLES = (
    ("tests", re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$")),
    ("examples", re.compile(r"(^|/)(examples?|demos?|notebooks?|tutorials?)/|\.ipynb$")),
    ("tools", re.compile(r"(^|/)(tools|scripts|benchmarks?|docs)/")),
    ("deployment", re.compile(r"(^|/)(deploy\w*|export\w*|serv(e|ing)\w*|infer\w*|onnx\w*|predict\w*)(/|\.py$)")),
    ("data", re.compile(r"(^|/)(data|datasets?|dataloaders?|transforms?|augment\w*)(/|\.py$)")),
    ("training", re.compile(r"(^|/)(train\w*|engine|trainer\w*|solver\w*|optim\w*|finetune\w*)(/|\.py$)")),
    (
        "model",
        re.compile(
            r"(^|/)(models?|modeling\w*|networks?|nets?|layers?|modules?|backbones?|heads?|necks?|arch\w*)(/|\.py$)"
        ),
    ),
)


def _match(rel: str, pattern: str) -> bool:
    """Glob on the relative path; `**/` also matches nothing (so tests/** covers tests/x.py)."""
    if fnmatch.fnmatch(rel, pattern):
        return True
    if pattern.startswith("**/") and fnmatch.fnmatch(rel, pattern[3:]):
        return True
    return pattern.endswith("/**") and (rel == pattern[:-3] or rel.startswith(pattern[:-2]))


def excluded(rel: str, patterns: list[str] | tuple[str, ...]) -> bool:
    return any(_match(rel, p) for p in patterns)


def role_of(rel: str, signals: set[str], has_modules: bool) -> str:
    """The file's role: by its path first (tests/, examples/, tools/ and the usual folder names), then by
    what the code does (defines Cells -> model; steps an optimizer -> training; datasets -> data)."""
    for role, pattern in PATH_ROLES:
        if pattern.search(rel.lower()):
            return role
    if "training" in signals:
        return "training"
    if "deployment" in signals:
        return "deployment"
    if has_modules:
        return "model"
    if "data" in signals:
        return "data"
    return "other"


def package_of(rel: str) -> str:
    """Top-level package (first folder; under src/ the second); files at the root are '(root)'."""
    parts = rel.split("/")
    if len(parts) > 2 and parts[0] == "src":
        return "src/" + parts[1]
    return parts[0] if len(parts) > 1 else "(root)"
