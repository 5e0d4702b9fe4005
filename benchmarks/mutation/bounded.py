"""A test child of the mutation run never outlives the run.

Each mutant's tests run in a child in a process group of its own, so that a timeout can end the
subprocesses a test started too. A group of its own is also out of reach of the terminal's Ctrl-C and of
a kill of the runner: without more, a runner killed mid-mutant leaves the child, and whatever its test
started, running on a mutated copy of the code. So the child watches its parent two ways and, when the
parent is gone, kills its whole group (itself included): the kernel's parent-death signal (Linux), which
arrives at once, and a watchdog thread that polls the parent's pid (any POSIX system, and a handler a
test installed for SIGTERM cannot stop it).
"""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_POLL_S = 0.2


def end_group(*_args) -> None:
    """SIGKILL to this process's group: the child and every subprocess its tests started."""
    os.killpg(os.getpgid(0), signal.SIGKILL)


def die_with_parent(parent: int) -> None:
    """Called first thing in a child: its own process group, ended as soon as `parent` is gone."""
    if os.getpgid(0) != os.getpid():
        os.setpgid(0, 0)
    signal.signal(signal.SIGTERM, end_group)
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the watchdog alone
    threading.Thread(target=_watch, args=(parent,), name="mutation-watchdog", daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was asked for
        end_group()


def _watch(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_POLL_S)
    end_group()
