"""Writing documents: JSON on stdout, files written atomically (temp file + rename)."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from advisor.errors import UsageError


def _umask() -> int:
    """The process umask, read without changing it (the TUI writes from worker threads)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def to_json(doc: Any) -> str:
    """One JSON document; pydantic models are dumped in JSON mode."""
    if hasattr(doc, "model_dump"):
        doc = doc.model_dump(mode="json")
    return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def read_json(path: str, hint: str, flag: str = "") -> Any:
    """A JSON input file, or one UsageError line naming the file (and flag) and what is expected."""
    where = f"{path}: {flag}: " if flag else f"{path}: "
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{where}no such file: {hint}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{where}not UTF-8 text: {hint}") from None
    except OSError as exc:
        raise UsageError(f"{where}cannot read: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}: "
                         f"{hint}") from None


def check_output(path: str | os.PathLike | None) -> None:
    """Refuse a bad -o up front (commands call it before slow work; write_atomic again at the end)."""
    if not path:
        return
    target = Path(path)
    if target.is_dir():
        raise UsageError(f"{target}: is a folder; -o expects a file name")
    if not target.parent.is_dir():
        raise UsageError(f"{target}: output folder {target.parent} does not exist")


def write_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write text to path via a temp file in the same folder and a rename: never half a file."""
    check_output(path)
    target = Path(path)
    folder = target.parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; a report is an ordinary file
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target


def emit(text: str, output: str | None) -> None:
    """Print to stdout, or write atomically to `output` when given."""
    if output:
        write_atomic(output, text)
    else:
        sys.stdout.write(text)
        sys.stdout.flush()
