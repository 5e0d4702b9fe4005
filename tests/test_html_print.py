"""The HTML review document printed, as a new user would: Debian's headless Chromium (selenium and
chromium-driver, as tests/test_html_browser.py), print media on an A4 page, then `print_page` to PDF.

- every folded appendix opens on paper (a closed <details> prints nothing of its body);
- every table, chart and code block is rendered and fits the page width (nothing cut at the margin);
- the printed PDF has pages for all of it.

Skips, saying why, only when chromium, chromedriver or selenium is absent."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import headless_chrome

headless_chrome.require()

from selenium.webdriver.common.print_page_options import PrintOptions  # noqa: E402

# A4 less the stylesheet's 14 mm margins, at 96 px per inch: (210 - 28) mm = 688 px of printable width
PRINT_WIDTH_PX = round((210 - 28) / 25.4 * 96)

# Every block a reader must find on paper, with whether it is rendered and how far it reaches right
BLOCKS = """
const width = document.documentElement.clientWidth;
const out = [];
for (const el of document.querySelectorAll('table, figure svg, pre, details > :not(summary)')) {
  const r = el.getBoundingClientRect();
  out.push({tag: el.tagName, text: (el.textContent || '').trim().slice(0, 60),
            visible: el.checkVisibility(), right: r.right, width: width});
}
return out;
"""


def _printed(browser, path: Path) -> None:
    browser.set_window_size(PRINT_WIDTH_PX, 1000)
    browser.get(path.as_uri())
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})


def test_every_table_chart_and_appendix_reaches_the_printed_page(browser, page):
    name, path = page
    _printed(browser, path)
    blocks = browser.execute_script(BLOCKS)
    assert any(b["tag"] == "TABLE" for b in blocks) and any(b["tag"] == "svg" for b in blocks)
    hidden = [b["text"] for b in blocks if not b["visible"]]
    assert not hidden, f"{name}: not printed: {hidden[:3]}"
    cut = [(b["tag"], b["text"], round(b["right"])) for b in blocks if b["right"] > b["width"] + 1]
    assert not cut, f"{name}: wider than the printed page ({blocks[0]['width']} px): {cut[:3]}"
    summaries = browser.execute_script("return [...document.querySelectorAll('summary')].map(s => s.textContent)")
    assert any(s.startswith("Appendix A") for s in summaries)


def test_the_same_page_on_screen_folds_the_appendices(browser, page):
    # the print rule is print-only: on screen a closed appendix stays closed
    _, path = page
    browser.set_window_size(1280, 1000)
    browser.get(path.as_uri())
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
    body = browser.execute_script(
        "return [...document.querySelectorAll('details > :not(summary)')].map(e => e.checkVisibility())"
    )
    assert body and not any(body)


def test_the_document_prints_to_a_pdf_of_several_pages(browser, page):
    name, path = page
    _printed(browser, path)
    opts = PrintOptions()
    opts.page_width, opts.page_height = 21.0, 29.7
    pdf = base64.b64decode(browser.print_page(opts))
    assert pdf.startswith(b"%PDF")
    pages = len(re.findall(rb"/Type\s*/Page\b", pdf))
    assert pages >= 4, f"{name}: {pages} printed page(s)"
