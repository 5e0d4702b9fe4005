"""Debian's headless Chromium under selenium, started the same way by every real-browser test. A test
module calls `require()` at import: it skips the module, saying why, when chromium, chromedriver or
selenium is absent. The fixtures those tests share (`browser`, `page`) are in conftest.py."""

from __future__ import annotations

import shutil

import pytest

ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars")


def require() -> tuple[str, str]:
    """(chromium, chromedriver) paths, or skip the calling module with what to install."""
    pytest.importorskip("selenium", reason="selenium is not installed (pinned in constraints.txt for `make test`)")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (chromium and driver):
        pytest.skip(
            "Debian chromium and chromium-driver are not installed (apt-get install -y chromium chromium-driver)",
            allow_module_level=True,
        )
    return chromium, driver


def start(chromium: str, driver: str):
    """A Chrome WebDriver on `chromium` through `driver` (selenium imported here: callers skip first)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for arg in ARGS:
        opts.add_argument(arg)
    opts.binary_location = chromium
    browser = webdriver.Chrome(service=Service(driver), options=opts)
    browser.set_page_load_timeout(60)
    return browser
