"""Debian's headless Chromium under selenium, started the same way by every real-browser test."""

from __future__ import annotations

ARGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars")


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
