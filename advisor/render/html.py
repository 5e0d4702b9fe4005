"""The report as ONE self-contained HTML5 file: the Markdown review document converted here (the
subset advisor.render.markdown writes: headings, paragraphs, nested lists, tables, code blocks,
quotes, **bold** and `code`), with the charts inlined as SVG. Nothing is fetched: no stylesheet,
script, font or image by URL; source URLs become links a reader can click. Tables and charts sit in
horizontal scroll containers, so a narrow screen scrolls them instead of cutting them off or shrinking
the chart text; the appendices (probe detail) are folded in <details>; printed (A4),
every folded part opens, tables and charts shrink to the page width instead of scrolling, and rows and
charts do not break across pages. Every string from the requirements, the
probe files or the scanned code is HTML-escaped (the converter escapes all text before adding tags).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from advisor.render import markdown

if TYPE_CHECKING:
    from advisor.report import Report
    from markdown_it import MarkdownIt
    from markdown_it.token import Token
    from markdown_it.utils import EnvType, OptionsDict


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
@page{size:A4;margin:14mm}
@media print{body{max-width:none;margin:0;padding:0;font-size:9.5pt;line-height:1.3}
details::details-content{content-visibility:visible;display:block}details{border:none;padding:0}
summary{list-style:none;font-size:1.25rem}.scroll{overflow:visible}
table{font-size:7.5pt;width:100%}th,td{min-width:0;overflow-wrap:anywhere;padding:.1rem .25rem}
td.r,th.r{white-space:normal}figure .scroll svg{max-width:100%!important;height:auto}
pre{white-space:pre-wrap;overflow:visible}h2,h3,summary{break-after:avoid}tr,figure,pre{break-inside:avoid}
a{color:inherit;text-decoration:none}}
"""
_DETAILS = re.compile(r"^<<(/?)details(?: (.*))?>>$", re.MULTILINE)


# A URL in already-escaped text: stops at whitespace, a bracket or an escaped quote or angle bracket.
_URL = re.compile(r"https?://(?:(?!&quot;|&#x27;|&lt;|&gt;)[^\s<>()\[\]\\])+(?<![.,;:])")


def _text(tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """Plain text, escaped; a source URL in it becomes a link a reader can click."""
    esc = html.escape(tokens[idx].content)
    return _URL.sub(lambda m: f'<a href="{m.group(0)}">{m.group(0)}</a>', esc)


def _parser() -> MarkdownIt:
    """CommonMark with GFM tables (markdown-it-py, which rich already brings); raw HTML off, so every
    string from the requirements, probes or scanned code is escaped."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    rules = md.renderer.rules
    rules["text"] = _text
    rules["table_open"] = lambda *a: '<div class="scroll"><table>\n'  # wide tables scroll, not overflow
    rules["table_close"] = lambda *a: "</table></div>\n"
    rules["th_open"] = rules["td_open"] = _cell
    return md


def _cell(tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
    """<th>/<td>, right-aligned columns by class (the stylesheet's .r), no inline style."""
    tok = tokens[idx]
    right = "text-align:right" in str(tok.attrGet("style") or "")
    return f"<{tok.tag}" + (' class="r"' if right else "") + ">"


def to_html(md: str, svgs: dict[str, str]) -> list[str]:
    """The Markdown document as HTML. `![alt](chart:NAME)` becomes the inlined SVG chart NAME (no other
    image is kept: nothing is fetched); `<<details TITLE>>` ... `<</details>>` fold a part."""
    parser = _parser()

    def image(tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType) -> str:
        tok = tokens[idx]
        src = str(tok.attrGet("src") or "")
        svg = svgs.get(src.removeprefix("chart:")) if src.startswith("chart:") else None
        if not svg:
            return ""
        alt = html.escape(tok.content)
        return f'</p><figure><div class="scroll">{svg}</div><figcaption>{alt}</figcaption></figure><p>'

    parser.renderer.rules["image"] = image
    out: list[str] = []
    pos = 0
    for m in _DETAILS.finditer(md):
        out.append(parser.render(md[pos : m.start()]))
        title = parser.renderInline(m.group(2) or "")
        out.append("</details>" if m.group(1) else f"<details><summary>{title}</summary>")
        pos = m.end()
    out.append(parser.render(md[pos:]))
    return [re.sub(r"<p>\s*</p>", "", "".join(out))]


def format(report: Report, **options: Any) -> str:
    from advisor.review.document import of
    from advisor.render.charts import charts

    svgs = charts(report)
    doc = options.get("document") or of(report, options.get("kb"))
    md = markdown.format(
        report,
        **dict(options, document=doc, collapse=True, chart_links={name: f"chart:{name}" for name in svgs}),
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
