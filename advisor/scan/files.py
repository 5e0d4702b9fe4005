"""Finding the files to scan under PATH, safely: no symlink escapes, no huge or binary files,
no virtual environments. Reads bytes only; nothing is imported or executed."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from advisor.scan.models import Skipped

MAX_BYTES = 2 * 1024 * 1024  # a hand-written source file is far below this; bigger = generated/data
MAX_FILES = 20_000
# The whole scan reads at most this much source: the largest project calibrated (mindnlp, 28 MB of
# Python and kernels) fits twice; past it a tree is data or generated code, and the time a scan takes
# (linear in what it reads) stays bounded. Assumption.
MAX_TOTAL_BYTES = 64 * 1024 * 1024
PY_SUFFIXES = {".py", ".ipynb"}
# Read only for the URLs of released checkpoints (download scripts, model-zoo tables, model indexes).
TEXT_SUFFIXES = {".sh", ".md", ".yml", ".yaml"}
MAX_TEXT_BYTES = 256 * 1024
# Weights shipped in the tree: listed by name, never read.
CHECKPOINT_SUFFIXES = {".pt", ".pth", ".ckpt", ".safetensors"}
MAX_NOTEBOOK_BYTES = 20 * 1024 * 1024  # notebooks carry their outputs (plots) along with the code
# CUDA sources are always extension code; C/C++ only when they talk to torch/pybind (see extensions).
CUDA_SUFFIXES = {".cu", ".cuh"}
CPP_SUFFIXES = {".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".hh"}
# Tool and environment folders: scanning them would count the libraries, not the team's code.
SKIP_DIRS = {"node_modules", "site-packages", "dist-packages", "venv"}
# Vendored copies of other libraries: not the team's code and not migration work.
VENDOR_DIRS = {"third_party", "third-party", "thirdparty", "3rdparty", "vendor", "vendored", "_vendor", "externals"}
# Caches and version-control folders hold no sources worth mentioning: skipped without a note.
QUIET_DIRS = {"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".ipynb_checkpoints"}


@dataclass
class Source:
    path: Path  # real file
    rel: str  # relative to the scan root, forward slashes
    data: bytes


@dataclass
class Collected:
    python: list[Source] = field(default_factory=list)
    native: list[Source] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    stopped: str = ""  # why the walk stopped before the end of the tree (a file count or byte budget)
    manifests: dict[str, bytes] = field(default_factory=dict)  # pyproject.toml at the root (extras)
    texts: list[Source] = field(default_factory=list)  # scripts, docs and configs read for released-weight URLs
    checkpoints: list[str] = field(default_factory=list)  # checkpoint files shipped in the tree (not read)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or path.name
    except ValueError:
        return path.as_posix()


def _inside(target: Path, root: Path) -> bool:
    try:
        target.relative_to(root)
        return True
    except ValueError:
        return False


class _Budget:
    """What the walk has read so far: bytes against MAX_TOTAL_BYTES, and each file's identity (device,
    inode) so that a hard link to a file already read is not read again."""

    def __init__(self) -> None:
        self.bytes = 0
        self.seen: dict[tuple[int, int], str] = {}

    @property
    def spent(self) -> bool:
        return self.bytes >= MAX_TOTAL_BYTES

    @staticmethod
    def reason() -> str:
        return f"the scan reads at most {MAX_TOTAL_BYTES // (1024 * 1024)} MB of source: rest not scanned"


def _read(path: Path, rel: str, skipped: list[Skipped], budget: _Budget) -> bytes | None:
    """The file's bytes, or None with the reason recorded (too big, unreadable, binary, a hard link to a
    file already read)."""
    limit = MAX_NOTEBOOK_BYTES if path.suffix.lower() == ".ipynb" else MAX_BYTES
    try:
        if not path.is_file():  # a FIFO or device named *.py would block or never end
            skipped.append(Skipped(file=rel, reason="not a regular file"))
            return None
        st = path.stat()
        size = st.st_size
        if size > limit:
            skipped.append(Skipped(file=rel, reason=f"larger than {limit // (1024 * 1024)} MB ({size} bytes)"))
            return None
        key = (st.st_dev, st.st_ino)
        if st.st_nlink > 1 and key in budget.seen:
            skipped.append(Skipped(file=rel, reason=f"hard link to {budget.seen[key]}: scanned once, there"))
            return None
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        skipped.append(Skipped(file=rel, reason=f"cannot read: {exc.strerror or exc}"))
        return None
    budget.seen.setdefault(key, rel)
    budget.bytes += len(data)
    if b"\x00" in data[:8192]:
        skipped.append(Skipped(file=rel, reason="binary file (NUL bytes)"))
        return None
    return data


def _read_text(path: Path, rel: str, budget: _Budget) -> bytes | None:
    """A small text file's bytes for its URLs, or None (too big, unreadable, the budget spent): no note, it is
    not code the scan estimates."""
    if budget.spent:
        return None
    try:
        if not path.is_file() or path.stat().st_size > MAX_TEXT_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_TEXT_BYTES + 1)
    except OSError:
        return None
    budget.bytes += len(data)
    return data


def _is_env(folder: Path) -> bool:
    return (folder / "pyvenv.cfg").exists() or (folder / "conda-meta").is_dir()


def _wanted(name: str) -> str | None:
    suffix = os.path.splitext(name)[1].lower()
    if suffix in PY_SUFFIXES:
        return "python"
    if suffix in CUDA_SUFFIXES or suffix in CPP_SUFFIXES:
        return "native"
    if suffix in TEXT_SUFFIXES:
        return "texts"
    if suffix in CHECKPOINT_SUFFIXES:
        return "checkpoints"
    return None


def _classify_link(path: Path, root: Path, rel: str) -> Skipped:
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):
        return Skipped(file=rel, reason="broken or looping symlink")
    if not _inside(target, root):
        return Skipped(file=rel, reason="symlink points outside PATH")
    return Skipped(file=rel, reason="symlink inside PATH: not followed (its target is scanned in place)")


def collect(root_arg: Path) -> tuple[Path, Collected]:
    """Walk root_arg (a folder or one file) and return its real root and the files to scan."""
    out = Collected()
    budget = _Budget()
    root_arg = Path(root_arg)
    if root_arg.is_file():
        root = root_arg.resolve().parent
        kind = _wanted(root_arg.name) or "python"  # an explicitly named file is scanned as Python
        data = _read(root_arg, root_arg.name, out.skipped, budget)
        if data is not None:
            getattr(out, kind).append(Source(root_arg.resolve(), root_arg.name, data))
        return root, out

    root = root_arg.resolve()
    count = 0
    manifest = root / "pyproject.toml"
    if manifest.is_file() and not manifest.is_symlink():
        data = _read(manifest, "pyproject.toml", [], budget)  # its problems are not the scan's: no note
        if data is not None:
            out.manifests["pyproject.toml"] = data
    # Depth first with an explicit stack (a tree thousands of folders deep is no recursion), folders and
    # files in name order: the order a recursive walk gives.
    stack = [root]
    while stack:
        here = stack.pop()
        entries = _list(here, root, out.skipped)
        if entries is None:
            continue
        keep = []
        for name, is_dir in entries:
            if not is_dir:
                continue
            sub = here / name
            rel = _rel(sub, root)
            if name in QUIET_DIRS:
                continue
            if sub.is_symlink():
                out.skipped.append(_classify_link(sub, root, rel))
            elif name.lower() in VENDOR_DIRS:
                out.skipped.append(Skipped(file=rel + "/", reason="vendored third-party library: not migration work"))
            elif name.startswith(".") or name in SKIP_DIRS or _is_env(sub):
                out.skipped.append(Skipped(file=rel + "/", reason="tool or environment folder: not scanned"))
            else:
                keep.append(sub)
        for name, is_dir in entries:
            kind = None if is_dir else _wanted(name)
            if kind is None:
                continue
            path = here / name
            rel = _rel(path, root)
            if path.is_symlink():
                out.skipped.append(_classify_link(path, root, rel))
                continue
            if kind == "checkpoints":
                out.checkpoints.append(rel)
                continue
            if kind == "texts":
                data = _read_text(path, rel, budget)
                if data is not None:
                    out.texts.append(Source(path, rel, data))
                continue
            count += 1
            if count > MAX_FILES:
                out.stopped = f"more than {MAX_FILES} source files: rest not scanned"
                out.skipped.append(Skipped(file=rel, reason=out.stopped))
                return root, out
            if budget.spent:
                out.stopped = budget.reason()
                out.skipped.append(Skipped(file=rel, reason=out.stopped))
                return root, out
            data = _read(path, rel, out.skipped, budget)
            if data is not None:
                getattr(out, kind).append(Source(path, rel, data))
        stack.extend(reversed(keep))
    return root, out


def _list(folder: Path, root: Path, skipped: list[Skipped]) -> list[tuple[str, bool]] | None:
    """(name, is a folder) of folder's entries in name order; None, with the reason recorded, when it
    cannot be read. A symlink is listed as what it names, so the caller can report it."""
    try:
        with os.scandir(folder) as it:
            entries = []
            for entry in it:
                try:
                    is_dir = entry.is_dir()  # follows a symlink: the caller sees it is one and skips it
                except OSError:
                    is_dir = False
                entries.append((entry.name, is_dir))
    except OSError as exc:
        skipped.append(Skipped(file=_rel(folder, root) + "/", reason=f"cannot read folder: {exc.strerror or exc}"))
        return None
    return sorted(entries)
