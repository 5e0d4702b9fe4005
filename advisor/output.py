"""Writing documents: JSON on stdout, files written atomically (temp file + rename)."""

from __future__ import annotations

import errno
import json
import math
import os
import stat
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Optional

from advisor.errors import UsageError
from advisor.sanitize import for_terminal


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


def _non_finite(doc: Any, where: str = "") -> str | None:
    """The path (`runs[0].images_per_second`) of the first NaN or infinity in `doc`, else None."""
    stack = [(doc, where)]
    while stack:
        value, at = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return at or "the document"
        if isinstance(value, dict):
            stack.extend((v, f"{at}.{k}" if at else str(k)) for k, v in reversed(list(value.items())))
        elif isinstance(value, (list, tuple)):
            stack.extend((v, f"{at}[{i}]") for i, v in reversed(list(enumerate(value))))
    return None


def to_json(doc: Any) -> str:
    """One JSON document; pydantic models are dumped in JSON mode.

    Non-finite numbers are refused by construction (allow_nan=False): `Infinity` is not JSON, and the
    tool's own `compare` and `report --probes` would refuse the file it wrote. The error names the
    field; the value came from an input that a range check missed (advisor.limits)."""
    if hasattr(doc, "model_dump"):
        doc = doc.model_dump(mode="json")
    try:
        return json.dumps(doc, indent=2, sort_keys=False, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        where = _non_finite(doc) or "a value"
        raise UsageError(
            f"{for_terminal(where)}: not a finite number: JSON output holds no NaN or infinity "
            "(a value read from the requirements, a knowledge-base override or a result file is out of range)"
        ) from None


# A probe suite with every raw step time is ~1 MB; 32 MB leaves room for many runs and refuses
# /dev/zero or a mistaken multi-GB file before it is read whole.
MAX_JSON_BYTES = 32 * 1024 * 1024


def read_json(path: str, hint: str, flag: str = "") -> Any:
    """A JSON input file, or one UsageError line naming the file (and flag) and what is expected.

    probes.bounded reads it: at most MAX_JSON_BYTES of a regular file, nested at most 64 levels, no
    NaN or infinity (they are not JSON, and no measurement or score can be one), no integer longer
    than 20 digits, no key twice."""
    from probes.bounded import BadValue, Refused, parse_json

    from advisor.safe_yaml import clip, read_bounded

    where = f"{path}: {flag}: " if flag else f"{path}: "
    raw = read_bounded(path, MAX_JSON_BYTES, hint.removeprefix("expected "), flag)
    try:
        return parse_json(raw)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: line {exc.lineno}, column {exc.colno}: invalid JSON: {exc.msg}: {hint}") from None
    except BadValue as exc:
        field = clip(for_terminal(exc.where), 80)
        raise UsageError(f"{where}{field}: invalid value: {clip(for_terminal(exc.why))}: {hint}") from None
    except Refused as exc:
        raise UsageError(f"{where}{exc}: {hint}") from None
    except ValueError as exc:  # an integer longer than Python converts, in a form parse_int never saw
        raise UsageError(f"{where}invalid value: {clip(str(exc))}: {hint}") from None


def check_output(path: str | os.PathLike | None, inputs: Iterable[str | os.PathLike | None] = ()) -> None:
    """Refuse a bad -o up front (commands call it before slow work; write_atomic again at the end):
    an empty name, a folder (`x.json/.` included), a special file other than a FIFO or a character
    device, a missing or read-only folder, a loop of links, and any of the command's own `inputs`
    (`--probes p.json -o p.json` would replace the measurement with the report)."""
    if path is None:
        return
    if not os.fspath(path):  # `-o "$OUT"` with OUT unset: not "print to stdout"
        raise UsageError("-o: an empty file name: expected a file to write (leave -o out for stdout)")
    try:
        _check_output(path)
        _not_an_input(path, inputs)
    except OSError as exc:  # a 300-character component (ENAMETOOLONG), a loop of links
        raise UsageError(f"{os.fspath(path)}: -o: {exc.strerror or exc}") from None
    except ValueError as exc:  # an embedded NUL byte
        raise UsageError(f"{os.fspath(path)!r}: -o: {exc}") from None


def same_file(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """`a` and `b` are one file (one inode, through any links or `..`); False when either is missing."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def _not_an_input(path: str | os.PathLike, inputs: Iterable[str | os.PathLike | None]) -> None:
    if _writes_in_place(Path(path)):  # /dev/stdout may well be where an input came from too
        return
    for given in inputs:
        if given and same_file(path, given):
            raise UsageError(
                f"{os.fspath(path)}: -o: is one of this command's inputs ({os.fspath(given)}): "
                "writing it would replace what was read; expected another file name"
            )


def _check_output(path: str | os.PathLike) -> None:
    text = os.fspath(path)
    target = Path(text)
    # pathlib reads `x.json/.` as `x.json`: the trailing `/.` names a folder, which -o is not
    if target.is_dir() or text.endswith(os.sep) or os.path.basename(text) in (".", ".."):
        raise UsageError(f"{text}: is a folder; -o expects a file name")
    if target.is_symlink() and not os.path.exists(text):
        try:
            os.stat(text)
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # a loop of links; a dangling one is written through
                raise
    real = Path(os.path.realpath(text))  # never raises on a loop (Path.resolve does: RuntimeError)
    if target.exists() and not real.is_file() and not _writes_in_place(target):
        raise UsageError(
            f"{text}: exists and is not a regular file (a socket, a block device): "
            "-o expects a file name, a FIFO or a character device such as /dev/stdout"
        )
    folder = real.parent if target.is_symlink() else target.parent
    if not folder.is_dir():
        raise UsageError(f"{target}: output folder {folder} does not exist")
    if not _writes_in_place(target) and not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"{target}: output folder {folder} is not writable")


def _writes_in_place(target: Path) -> bool:
    """A FIFO or a character device (/dev/null, /dev/stdout, a terminal) is written to, not replaced."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


# How long `-o FIFO` waits for a reader: `advisor report -o pipe & cat pipe` works, and a FIFO that
# nobody reads is one error line after this, not a process blocked for good.
FIFO_READER_WAIT_S = 30.0
# How often it looks for that reader: a reader started after the writer is found within this, at the cost
# of one failed open per look (assumption: a person or a script starts it in well under a second).
FIFO_POLL_S = 0.05


def _open_in_place(target: Path, wait: float):
    """A FIFO opened without blocking on a missing reader (polled up to `wait` seconds), then
    switched back to blocking writes; a character device opened as usual."""
    if not stat.S_ISFIFO(os.stat(target).st_mode):
        return open(target, "w", encoding="utf-8", errors="replace")
    deadline = time.monotonic() + wait
    while True:
        try:
            fd = os.open(target, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: no reader yet
                raise
            if time.monotonic() >= deadline:
                raise UsageError(f"{target}: a FIFO with no reader after {wait:g} s: start its reader first") from None
            time.sleep(FIFO_POLL_S)
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w", encoding="utf-8", errors="replace")


def export_file(path: str | os.PathLike, text: str) -> Path:
    """The TUI's export: like write_atomic, but an existing FIFO or device is refused up front
    (checked without opening it), so the screen never waits for a reader."""
    return write_atomic(path, for_terminal(text), in_place=False)


def write_atomic(path: str | os.PathLike, text: str, in_place: bool = True) -> Path:
    """Write text to path via a temp file in the same folder and a rename: never half a file.

    A symlink's target is replaced (the link stays a link); a FIFO or character device is written
    in place (`in_place=False` refuses them); an existing file keeps its permission bits. Every
    failure is one UsageError line."""
    check_output(path)
    given = Path(path)
    if _writes_in_place(given):
        if not in_place:
            raise UsageError(
                f"{given}: exists and is not a regular file (a FIFO or a device): expected a file name to write"
            )
        try:
            with _open_in_place(given, FIFO_READER_WAIT_S) as fh:
                fh.write(text)
        except OSError as exc:
            raise UsageError(f"{given}: cannot write: {exc.strerror or exc}") from None
        return given
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()  # a new file: an ordinary file, not mkstemp's 0600
    folder = target.parent
    try:
        # A legal 250-character name plus mkstemp's 10 characters passes NAME_MAX: a short prefix then.
        prefix = (
            f".{target.name}." if len(os.fsencode(target.name)) <= 200 else ".advisor-"
        )  # bytes, as the kernel counts
        fd, tmp = tempfile.mkstemp(prefix=prefix, dir=folder)
    except OSError as exc:
        raise UsageError(f"{given}: cannot write: {exc.strerror or exc}") from None
    try:
        # errors="replace": a lone surrogate (a \\ud800 escape in an input file) becomes U+FFFD
        with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
            fh.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):  # ENOSPC, EROFS, EDQUOT: bad output, not an internal error
            raise UsageError(f"{given}: cannot write: {exc.strerror or exc}") from None
        raise
    return given


def regular_target(path: str | os.PathLike | None) -> bool:
    """-o names a regular file (new or existing), where companion files (charts) may sit beside
    it; not a FIFO or device such as /dev/stdout, beside which nothing may be created."""
    return bool(path) and not _writes_in_place(Path(path))


def write_with_companions(path: str | os.PathLike, text: str, companions: dict[str, str]) -> Path:
    """The document and its companion files (name -> text, beside it) as one step: everything staged
    in temp files first, then renamed into place, the document first (charts never land beside a
    document that failed). A failure anywhere (a chart's name taken by a folder, a full disk) puts
    back what each rename replaced and removes what was staged: never charts without the document,
    never a document whose charts failed, no temp file left."""
    check_output(path)
    given = Path(path)
    if not companions or not regular_target(given):
        return write_atomic(given, for_terminal(text))
    target = Path(os.path.realpath(given)) if given.is_symlink() else given
    folder = target.parent
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        mode = 0o666 & ~_umask()
    staged: list[tuple[Path, Path]] = []  # (where it goes, its temp file)
    placed: list[tuple[Path, Optional[Path]]] = []  # (renamed into place, the file it replaced, kept)

    def _remove(paths) -> None:
        for p in paths:
            try:
                os.unlink(p)
            except OSError:
                pass

    try:
        items = [(target, for_terminal(text), mode)]
        items += [(folder / name, content, 0o666 & ~_umask()) for name, content in companions.items()]
        for final, content, bits in items:
            fd, tmp = tempfile.mkstemp(prefix=".advisor-", suffix=".tmp", dir=folder)
            staged.append((final, Path(tmp)))
            with os.fdopen(fd, "w", encoding="utf-8", errors="replace") as fh:
                fh.write(content)
            os.chmod(tmp, bits)
        for final, tmp in staged:
            kept = _keep_old(final)
            try:
                os.replace(tmp, final)
            except BaseException as exc:
                if kept is not None:
                    _remove([kept])
                if isinstance(exc, OSError):
                    exc.filename = str(final)  # the name the user knows, not the temp file's
                raise
            placed.append((final, kept))
    except BaseException as exc:
        for final, kept in reversed(placed):  # put back what each rename replaced
            try:
                if kept is not None:
                    os.replace(kept, final)
                else:
                    os.unlink(final)
            except OSError:
                pass
        _remove(tmp for _, tmp in staged)
        if isinstance(exc, OSError):
            where = getattr(exc, "filename", None) or given
            raise UsageError(f"{where}: cannot write: {exc.strerror or exc}") from None
        raise
    _remove(kept for _, kept in placed if kept is not None)
    return given


def _keep_old(final: Path) -> Optional[Path]:
    """A hard link to what `final` names, a file or a symlink itself (so a failed step can put it back
    as it was: a chart name that was a link comes back a link), or None when there is neither (or the
    file system has no hard links: then it cannot be put back, only replaced)."""
    if not os.path.islink(final) and not os.path.isfile(final):
        return None
    keep = final.with_name(f".advisor-{uuid.uuid4().hex[:12]}.kept")
    try:
        os.link(final, keep, follow_symlinks=False)
    except (OSError, NotImplementedError):  # NotImplementedError: a platform that links only targets
        return None
    return keep


def write_fallback(kind: str, text: str) -> str:
    """Keep a measurement that -o or the cache could not take: a named file in the temp folder
    (else the home folder); as the last resort the JSON itself on stderr. Returns where it went.

    A measurement costs minutes of host time; losing it to a full disk is worse than a stray file
    whose name the message gives."""
    name = f"advisor-{kind}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    folders = dict.fromkeys((tempfile.gettempdir(), os.path.expanduser("~")))
    for folder in folders:
        try:
            return str(write_atomic(Path(folder) / name, text))
        except (UsageError, OSError):
            continue
    try:
        sys.stderr.write(text)
        sys.stderr.flush()
    except (AttributeError, OSError, ValueError):
        return "nowhere (no folder was writable and stderr is closed)"
    return "stderr (the JSON above)"


def emit(text: str, output: str | None) -> None:
    """Print to stdout, or write atomically to `output` when given.

    No document this tool writes holds a control character, so any that came in with user or file
    text (a terminal escape in a requirements name, a scanned file name) is removed here, once."""
    text = for_terminal(text)
    if output is not None:  # "" is refused by write_atomic, not taken for stdout
        write_atomic(output, text)
        return
    if sys.stdout is None:  # started with file descriptor 1 closed
        raise UsageError("stdout: closed: give -o FILE to write the output to a file")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except UnicodeEncodeError:
        # PYTHONIOENCODING=ascii or a C locale: say what could not be printed rather than crash.
        raise UsageError(
            "stdout: the terminal's encoding cannot show this text: set PYTHONIOENCODING=utf-8 or write it with -o FILE"
        ) from None
    except OSError as exc:  # a closed stdout, /dev/full
        raise UsageError(f"stdout: cannot write: {exc.strerror or exc}") from None
