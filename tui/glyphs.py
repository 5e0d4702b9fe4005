"""The few non-ASCII characters the TUI draws, with an ASCII fallback for terminals (and fonts) that
cannot show them: ADVISOR_ASCII=1, or a locale whose encoding is not UTF-8 (pure: no Textual)."""

from __future__ import annotations

import locale
import os
import sys


def ascii_only() -> bool:
    flag = os.environ.get("ADVISOR_ASCII", "").strip().lower()
    if flag in ("1", "true", "yes", "on"):
        return True
    if flag in ("0", "false", "no", "off"):
        return False
    encoding = getattr(sys.stdout, "encoding", None) or locale.getpreferredencoding(False) or ""
    return "utf" not in encoding.lower()


def glyph(fancy: str, plain: str) -> str:
    return plain if ascii_only() else fancy


def arrow() -> str:
    return glyph("→", "->")


def ellipsis() -> str:
    return glyph("…", "...")
