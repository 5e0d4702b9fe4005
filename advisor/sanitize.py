"""Text from users and files made safe for where it is printed.

A requirements `name`, a scanned file name, a framework's error text or a `compare` value can hold
terminal escape sequences (`\\x1b]0;title\\x07`, `\\x1b[2J`), a newline that starts a Markdown heading,
or `<script>`. Terminals get the text without control characters (for_terminal, one_line); Markdown
gets it through one CommonMark-aware function (for_markdown, and md_cell / md_fence for table cells and
code blocks): on one line, with no link, image, autolink, raw HTML or block of its own; HTML gets it
escaped (for_html; the HTML report is the Markdown converted with raw HTML off). Every renderer calls
these for every string it did not write itself; result files are made one-line when read
(plain_strings).
"""

from __future__ import annotations

import html
import re

# ESC-introduced sequences (CSI, OSC up to BEL or ST, and two-byte escapes), then any other C0/C1
# control character except tab and newline, and DEL.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?")
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A lone surrogate (a \ud800 escape in JSON, a non-UTF-8 file name read with surrogateescape)
# cannot be encoded: it becomes U+FFFD wherever text is printed or written.
_SURROGATES = re.compile("[\ud800-\udfff]")


def for_terminal(text: str) -> str:
    """`text` with escape sequences and control characters removed (newlines and tabs kept)."""
    return _SURROGATES.sub("\ufffd", _CONTROLS.sub("", _ESCAPES.sub("", text)))


def one_line(text: str) -> str:
    """Printable, on one line: what a table cell or an error line may hold."""
    return " ".join(for_terminal(text).replace("\t", " ").split())


# A code span: a run of backticks, then the shortest text up to a run of the same length (CommonMark
# 6.1). Text between two such runs is code; a backtick with no partner is escaped.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# What makes inline text active (CommonMark 6): `[` opens a link, an image (`![`) or a link reference,
# and `]` closes one, the tool's own `[` included ("[refs]" around a value); `<` before a letter, `/`, `!`
# or `?` opens raw HTML or an autolink; a backslash before punctuation (or at the end, before the tool's
# next character) escapes it; a backtick with no partner opens code.
_MD_ACTIVE = re.compile(r"([\[\]]|<(?=[A-Za-z/!?])|\\(?=[!-/:-@\[-`{-~]|$)|`)")
# What makes a value that starts a line (or a list item) a block of its own: a heading, a quote, a
# setext underline, a list marker, a thematic break.
_BLOCK_START = re.compile(r"^(?:[#>=]|[-+*](?=\s|$)|([-*_])(?:\s*\1){2,}\s*$)")
_ORDERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")


def _inline(line: str) -> str:
    """`line` with what could be active escaped; balanced code spans kept (code is inert)."""
    parts, pos = [], 0
    for m in _CODE_SPAN.finditer(line):
        parts.append(_MD_ACTIVE.sub(r"\\\1", line[pos : m.start()]))
        parts.append(m.group(0))
        pos = m.end()
    parts.append(_MD_ACTIVE.sub(r"\\\1", line[pos:]))
    return "".join(parts)


def for_markdown(text: object, *, code: bool = False) -> str:
    """Text from a user, a result file, the knowledge base or the scanned code, as CommonMark that
    shows it and does nothing else: one line (no heading, quote, list or table row can start; a
    leading `#`, `>`, `- ` or `1.` is escaped for where the value starts a line or a list item), no
    link, image, autolink or raw HTML; code spans kept as code.

    Emphasis and code spans are inert and stay (the tool's own sentences use **bold** and `code`);
    `|` is left to the table writer (md_cell), which escapes it in cells. `code=True`: the whole
    text as one code span, fenced longer than any backtick run inside it."""
    line = one_line(str(text))
    if code:
        longest = max((len(m) for m in re.findall(r"`+", line)), default=0)
        fence = "`" * (longest + 1)
        pad = " " if line.startswith(("`", " ")) or line.endswith(("`", " ")) else ""
        return f"{fence}{pad}{line}{pad}{fence}" if line else "` `"
    out = _inline(line)
    if _BLOCK_START.match(out):
        return "\\" + out
    return _ORDERED.sub(r"\1\\\2", out, count=1)


def md_cell(text: object) -> str:
    """A Markdown table cell: inline text as for_markdown (a cell starts no block, so a leading `-`
    stays), and `|` escaped (GFM reads `\\|` as a pipe inside code spans too)."""
    return _inline(one_line(str(text))).replace("|", "\\|")


def md_fence(lines: list[str], info: str = "") -> list[str]:
    """Lines as one fenced code block whose fence no line can close (longer than any backtick run)."""
    body = [for_terminal(line).replace("\n", " ") for line in lines]
    longest = max((len(m) for line in body for m in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *body, fence]


def quoted_label(text: str) -> str:
    """A result file's free-text label (a data.source) quoted inside the tool's own sentences, which go
    to every format: one line, and no angle brackets, so no format can take it for markup."""
    return one_line(str(text)).replace("<", "\u2039").replace(">", "\u203a")


def for_html(text: str) -> str:
    return html.escape(for_terminal(text), quote=True)


def plain_strings(doc, max_depth: int = 64):
    """A copy of `doc` (dicts and lists) with every string, keys included, `one_line`: what a result
    file says (a host's CPU model, a run's label, an accuracy result's names) can no longer start a
    Markdown heading or carry a terminal escape, whichever field it is in. Iterative; deeper than
    `max_depth` is left as it is (the reader refuses that first)."""
    root: list = [None]
    stack = [(doc, root, 0, 0)]
    while stack:
        value, parent, key, depth = stack.pop()
        if isinstance(value, str):
            parent[key] = one_line(value)
        elif isinstance(value, dict) and depth <= max_depth:
            copy: dict = {}
            parent[key] = copy
            for k, v in value.items():
                name = one_line(k) if isinstance(k, str) else k
                copy[name] = None
                stack.append((v, copy, name, depth + 1))
        elif isinstance(value, list) and depth <= max_depth:
            items: list = [None] * len(value)
            parent[key] = items
            stack.extend((v, items, i, depth + 1) for i, v in enumerate(value))
        else:
            parent[key] = value
    return root[0]
