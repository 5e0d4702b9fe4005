"""The HTML review document in a real browser (Debian's headless Chromium through selenium and
chromium-driver), for each bundled example at 1280 and 420 px wide:

- no horizontal overflow of the page: whatever is wider than the screen (tables, charts) scrolls
  inside its own container (`.scroll`, `pre`), so nothing is cut off (the total read "79." at 420 px);
- chart text renders at 9 px or more (inlined SVG shrunk to the screen put it near 4 px);
- the legend of each chart is clear of the data (its box meets no bar of the series colours);
- links are clickable: every source URL in the text is an <a> and the topmost element at its centre.

Screenshots are kept as test artefacts in $ADVISOR_TEST_ARTEFACTS (default: <tmp>/advisor-artefacts/
html-browser). Skips, saying why, only when chromium, chromedriver or selenium is absent; `make test`
installs them (apt-get install chromium chromium-driver; selenium pinned in constraints.txt).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

import headless_chrome

headless_chrome.require()


WIDTHS = (1280, 420)
MIN_CHART_PX = 9.0
SERIES = ("#d9531e", "#2b6cb0", "#6b46c1")  # advisor.render.charts.COLORS
ARTEFACTS = (
    Path(os.environ.get("ADVISOR_TEST_ARTEFACTS") or Path(tempfile.gettempdir()) / "advisor-artefacts") / "html-browser"
)


def _open(browser, path: Path, width: int) -> None:
    browser.set_window_size(width, 1000)
    browser.get(path.as_uri())
    # the window's outer size includes no chrome in headless mode, but check what the page got
    inner = browser.execute_script("return window.innerWidth")
    assert abs(inner - width) <= 20, f"the window is {inner} px wide, asked for {width}"


def _shoot(browser, name: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(ARTEFACTS / f"{name}.png"))


OVERFLOW = """
const vw = document.documentElement.clientWidth, bad = [];
for (const el of document.body.querySelectorAll('*')) {
  if (el.closest('.scroll, pre, svg, details:not([open]) > :not(summary)')) continue;
  const r = el.getBoundingClientRect();
  if (r.width && r.right > vw + 1) bad.push(el.tagName + ' ' + (el.textContent || '').slice(0, 40) + ' right=' + Math.round(r.right));
}
return [document.documentElement.scrollWidth, vw, bad.slice(0, 5)];
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_no_horizontal_overflow_outside_scroll_containers(browser, page, width):
    stem, path = page
    _open(browser, path, width)
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    scroll_width, vw, bad = browser.execute_script(OVERFLOW)
    _shoot(browser, f"{stem}-{width}")
    assert scroll_width <= vw + 1, f"{stem} at {width} px: the page is {scroll_width} px wide ({bad})"
    assert not bad, f"{stem} at {width} px: elements run off the right edge outside a scroll container: {bad}"
    # the tables are in scroll containers, so a wide one scrolls instead of cutting its last column
    unwrapped = browser.execute_script(
        "return [...document.querySelectorAll('table')].filter(t => !t.closest('.scroll')).length"
    )
    assert unwrapped == 0


CHART_TEXT = """
const out = [];
for (const t of document.querySelectorAll('figure svg text')) {
  if (!t.textContent.trim()) continue;
  const m = t.getScreenCTM(), size = parseFloat(getComputedStyle(t).fontSize);
  out.push([size * Math.hypot(m.a, m.b), t.textContent.trim().slice(0, 30)]);
}
return out;
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_chart_text_is_at_least_9px(browser, page, width):
    stem, path = page
    _open(browser, path, width)
    sizes = browser.execute_script(CHART_TEXT)
    assert sizes, f"{stem}: no chart text found (are the charts inlined?)"
    small = [(round(px, 1), text) for px, text in sizes if px < MIN_CHART_PX]
    assert not small, f"{stem} at {width} px: chart text below {MIN_CHART_PX} px: {small[:5]}"
    browser.execute_script("document.querySelector('figure').scrollIntoView()")
    _shoot(browser, f"{stem}-{width}-chart")


LEGENDS = """
const colours = arguments[0], hits = [];
const inter = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
for (const svg of document.querySelectorAll('figure svg')) {
  for (const legend of svg.querySelectorAll('g[id*="legend_"]')) {
    const box = legend.getBoundingClientRect();
    for (const p of svg.querySelectorAll('path, rect')) {
      if (legend.contains(p)) continue;
      const fill = (p.getAttribute('style') || '') + ' ' + (p.getAttribute('fill') || '');
      if (!colours.some(c => fill.includes(c))) continue;
      const r = p.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && inter(box, r)) hits.push(legend.id);
    }
  }
}
return [document.querySelectorAll('figure svg g[id*="legend_"]').length, [...new Set(hits)]];
"""


def test_legends_are_clear_of_the_data(browser, page):
    stem, path = page
    _open(browser, path, 1280)
    count, hits = browser.execute_script(LEGENDS, list(SERIES))
    assert count >= 1, f"{stem}: no chart legend found to check"
    assert not hits, f"{stem}: a legend covers data bars: {hits}"


LINKS = """
const plain = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const n = walker.currentNode;
  if (/https?:\\/\\//.test(n.textContent) && !n.parentElement.closest('a, pre, code, svg'))
    plain.push(n.textContent.trim().slice(0, 60));
}
return [[...document.querySelectorAll('a[href^="http"]')].length, plain.slice(0, 5)];
"""

TOPMOST = """
const a = arguments[0];
a.scrollIntoView({block: 'center', inline: 'nearest'});
const r = a.getClientRects()[0];
if (!r) return false;
const el = document.elementFromPoint(r.left + Math.min(r.width, 20) / 2, r.top + r.height / 2);
return el === a || a.contains(el);
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_source_urls_are_clickable_links(browser, page, width):
    stem, path = page
    _open(browser, path, width)
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    count, plain = browser.execute_script(LINKS)
    assert count > 0, f"{stem}: no source URL is a link"
    assert not plain, f"{stem}: URLs left as plain text: {plain}"
    anchors = browser.find_elements("css selector", 'a[href^="http"]')
    for a in anchors[:15]:
        assert a.is_displayed()
        assert browser.execute_script(TOPMOST, a), f"{stem} at {width} px: {a.get_attribute('href')} is covered"


CUT_TEXT = """
const cut = [];
for (const svg of document.querySelectorAll('figure svg')) {
  const box = svg.getBoundingClientRect();
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (!t.textContent.trim() || !r.width) continue;
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      cut.push(t.textContent.trim().slice(0, 50));
  }
}
return [document.querySelectorAll('figure svg').length, cut];
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_no_chart_text_is_cut_at_the_charts_edge(browser, page, width):
    """Every label of every chart (the throughput chart's axis label included) lies inside its SVG: text
    past the edge is cut off on screen and on paper."""
    stem, path = page
    _open(browser, path, width)
    browser.execute_script("document.querySelectorAll('details').forEach(d => d.open = true)")
    charts, cut = browser.execute_script(CUT_TEXT)
    assert charts >= 4, f"{stem}: {charts} charts inlined"
    assert not cut, f"{stem} at {width} px: chart text cut at the edge: {cut[:5]}"
