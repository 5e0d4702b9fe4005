"""The worker side of the result channel. Standard library only: workers import this and their
one framework, nothing else of the project.

The parent passes a pipe's write end as the file descriptor named in ADVISOR_RESULT_FD. Each message
is one JSON line, so results never mix with the frameworks' log noise on stdout/stderr.
"""

from __future__ import annotations

import json
import os

_ENV = "ADVISOR_RESULT_FD"
_stream = None


def _out():
    global _stream
    if _stream is None:
        fd = os.environ.get(_ENV)
        if fd is None:  # run by hand: messages go to stdout
            import sys

            _stream = sys.stdout
        else:
            _stream = os.fdopen(int(fd), "w", buffering=1, encoding="utf-8")
    return _stream


def send(kind: str, **payload) -> None:
    """Send one message: kind is e.g. 'progress', 'result' or 'error'."""
    out = _out()
    out.write(json.dumps({"kind": kind, **payload}, default=str) + "\n")
    out.flush()


def result(**payload) -> None:
    send("result", **payload)


def progress(**payload) -> None:
    send("progress", **payload)


def guarded(work, *args) -> int:
    """Run a worker's `work(*args)` (which sends its own result); any exception goes back as an
    'error' message with the traceback's tail, so a failure is data, never a bare crash. Exit code."""
    import traceback

    try:
        return int(work(*args) or 0)
    except Exception as exc:  # noqa: BLE001 - every failure of a worker becomes data for the parent
        send("error", message=f"{type(exc).__name__}: {exc}"[:500], traceback=traceback.format_exc()[-2000:])
        return 1
