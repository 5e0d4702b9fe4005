"""The report as ONE self-contained HTML5 file: the Markdown review document converted here (the
subset advisor.render.markdown writes: headings, paragraphs, nested lists, tables, code blocks,
quotes, **bold** and `code`), with the charts inlined as SVG. Nothing is fetched: no stylesheet,
script, font or image by URL; source URLs become links a reader can click. Tables and charts sit in
horizontal scroll containers, so a narrow screen scrolls them instead of cutting them off or shrinking
the chart text; the appendices (probe detail) are folded in <details>. Every string from the requirements, the
probe files or the scanned code is HTML-escaped (the converter escapes all text before adding tags).
"""

from __future__ import annotations

import html
import re
from typing import Any

from advisor.render import markdown

STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem;
line-height:1.45;color:#1a202c;overflow-wrap:anywhere}
h1{font-size:1.6rem}h2{font-size:1.25rem;border-bottom:1px solid #cbd5e0;padding-bottom:.2rem;margin-top:2rem}
h3{font-size:1.05rem}table{border-collapse:collapse;margin:.5rem 0;font-size:.85rem}
.scroll{overflow-x:auto;max-width:100%}
th,td{border:1px solid #cbd5e0;padding:.25rem .5rem;vertical-align:top;overflow-wrap:normal;min-width:4rem}
th{background:#edf2f7}td.r,th.r{text-align:right;white-space:nowrap}
code{background:#edf2f7;padding:0 .2rem;border-radius:3px;font-size:.85em}
pre{background:#f7fafc;border:1px solid #e2e8f0;padding:.6rem;overflow-x:auto}pre code{background:none;padding:0}
blockquote{border-left:4px solid #a0aec0;margin:.5rem 0;padding:.2rem .8rem;color:#2d3748}
figure{margin:1rem 0}figure .scroll svg{max-width:none;height:auto}figcaption{font-size:.8rem;color:#4a5568}
details{margin:1rem 0;border:1px solid #e2e8f0;padding:.4rem .8rem}summary{font-weight:600;font-size:1.15rem;cursor:pointer}
"""
_IMAGE = re.compile(r"^!\[([^\]]*)\]\(chart:([a-z_]+)\)$")
_LIST = re.compile(r"^( *)(- |\d+\. )(.*)$")
_DETAILS = re.compile(r"^<<details (.*)>>$")
# A URL in already-escaped text: stops at whitespace, a closing bracket or an entity's quote.
_URL = re.compile(r"https?://(?:(?!&quot;|&#x27;|&lt;|&gt;)[^\s<>()\[\]\\])+(?<![.,;:])")


def inline(text: str) -> str:
    """Escape, then `code` and **bold** (code first, so that ** inside code stays literal)."""
    out = []
    for i, part in enumerate(re.split(r"`([^`]*)`", text)):
        if i % 2:
            out.append(f"<code>{html.escape(part)}</code>")
        else:
            esc = html.escape(part.replace("\\|", "|"))
            esc = _URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>', esc)
            out.append(re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", esc))
    return "".join(out)


def _cells(line: str) -> list[str]:
    body = line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]
    return [c.strip() for c in re.split(r"(?<!\\)\|", body)]


def _table(lines: list[str]) -> list[str]:
    head, sep, rows = _cells(lines[0]), _cells(lines[1]), [_cells(r) for r in lines[2:]]
    align = ["r" if s.endswith(":") and not s.startswith(":") else "" for s in sep]

    def cls(i):
        return f' class="{align[i]}"' if i < len(align) and align[i] else ""

    out = [
        '<div class="scroll"><table>',
        "<thead><tr>" + "".join(f"<th{cls(i)}>{inline(h)}</th>" for i, h in enumerate(head)) + "</tr></thead>",
        "<tbody>",
    ]
    out += ["<tr>" + "".join(f"<td{cls(i)}>{inline(c)}</td>" for i, c in enumerate(r)) + "</tr>" for r in rows]
    return out + ["</tbody>", "</table></div>"]


def _list(lines: list[str]) -> list[str]:
    """Nested <ul>/<ol> from indented '- ' / 'N. ' lines."""
    out: list[str] = []
    stack: list[tuple[int, str]] = []  # (indent, tag)
    for line in lines:
        m = _LIST.match(line)
        if m is None:
            continue
        indent, tag = len(m.group(1)), "ol" if m.group(2)[0].isdigit() else "ul"
        while stack and indent < stack[-1][0]:
            out.append(f"</li></{stack.pop()[1]}>")
        if stack and indent == stack[-1][0]:
            if tag != stack[-1][1]:
                out.append(f"</li></{stack.pop()[1]}>")
                out.append(f"<{tag}><li>")
                stack.append((indent, tag))
            else:
                out.append("</li><li>")
        else:
            out.append(f"<{tag}><li>")
            stack.append((indent, tag))
        out.append(inline(m.group(3)))
    while stack:
        out.append(f"</li></{stack.pop()[1]}>")
    return out


def to_html(md: str, svgs: dict[str, str]) -> list[str]:
    lines = md.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif m := _DETAILS.match(line):
            out.append(f"<details><summary>{inline(m.group(1))}</summary>")
            i += 1
        elif line == "<</details>>":
            out.append("</details>")
            i += 1
        elif line.startswith("```"):
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append("<pre><code>" + "\n".join(html.escape(x) for x in lines[i + 1 : j]) + "</code></pre>")
            i = j + 1
        elif m := re.match(r"^(#{1,4}) (.*)$", line):
            level = len(m.group(1))
            out.append(f"<h{level}>{inline(m.group(2))}</h{level}>")
            i += 1
        elif m := _IMAGE.match(line):
            svg = svgs.get(m.group(2))
            if svg:
                out.append(
                    f'<figure><div class="scroll">{svg}</div><figcaption>{html.escape(m.group(1))}</figcaption></figure>'
                )
            i += 1
        elif line.startswith("|"):
            j = i
            while j < len(lines) and lines[j].startswith("|"):
                j += 1
            out += _table(lines[i:j])
            i = j
        elif _LIST.match(line):
            j = i
            while j < len(lines) and _LIST.match(lines[j]):
                j += 1
            out += _list(lines[i:j])
            i = j
        elif line.startswith("> "):
            out.append(f"<blockquote><p>{inline(line[2:])}</p></blockquote>")
            i += 1
        else:
            j = i
            while (
                j < len(lines)
                and lines[j].strip()
                and not re.match(r"^(#|\||```|> |!\[|<<)", lines[j])
                and not _LIST.match(lines[j])
            ):
                j += 1
            out.append("<p>" + " ".join(inline(x) for x in lines[i:j]) + "</p>")
            i = j
    return out


def format(report: Any, **options: Any) -> str:
    from advisor.render.charts import charts
    from advisor.render.summary import knowledge_for

    kb, _ = knowledge_for(report, options)
    svgs = charts(report, kb)
    from advisor.decision.document import of

    doc = options.get("document") or of(report, kb)
    md = markdown.format(
        report,
        **dict(options, kb=kb, document=doc, collapse=True, chart_links={name: f"chart:{name}" for name in svgs}),
    )
    title = html.escape(f"Framework advice: {report.requirements.name}")
    head = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title}</title>",
        f"<style>{STYLE.strip()}</style>",
        "</head>",
        "<body>",
    ]
    return "\n".join(head + to_html(md, svgs) + ["</body>", "</html>"]) + "\n"


render = format
