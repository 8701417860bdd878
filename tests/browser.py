"""A real headless Chromium for the tests of pages and HTML mails, and what they measure in it.

Needs the Debian package ``chromium`` (``/usr/bin/chromium``) and the Python packages
``playwright`` (the system browser is used, never ``playwright install``) and
``axe-playwright-python``, which carries axe-core's ``axe.min.js``. ``.ci/run`` installs them.

Use the ``browser`` fixture of a test module with ``from tests.browser import browser`` (and
``server``, the service's app on a loopback port, where the test needs pages served);
``PHONE_WIDTHS`` are the widths the issue asks for, ``DESKTOP_WIDTH`` the wide one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from tests.system_tools import require_system_tool

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INSTALL_HINT = (
    "run .ci/run, or install the browser with "
    "`apt-get update && apt-get install -y chromium` and `pip install -e '.[dev]'`"
)
PHONE_WIDTHS = (320, 390)
DESKTOP_WIDTH = 1200
SCREENSHOTS = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
BLOCKING_IMPACTS = frozenset({"serious", "critical"})


@pytest.fixture
def server(app: Any) -> Iterator[str]:
    """The service's ``app`` (the test module's fixture) on a real HTTP server, on a free
    loopback port, for the browser to open its pages."""
    http = make_server("127.0.0.1", 0, app, threaded=False)
    thread = threading.Thread(target=http.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{http.server_port}"
    http.shutdown()
    thread.join(timeout=10)


def screenshot(page: Any, name: str, full_page: bool = True) -> bytes:
    """The page as a PNG; also kept as ``docs/screenshots/<name>.png`` when ``SCREENSHOTS=1``
    (a person refreshes the committed pictures on purpose; a test run leaves the tree clean)."""
    if os.environ.get("SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        return bytes(page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full_page))
    return bytes(page.screenshot(full_page=full_page))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_system_tool(CHROMIUM, INSTALL_HINT)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail(f"the Python package playwright is missing: {INSTALL_HINT}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_html(browser: Any, html: str, width: int, problems: list[str] | None = None) -> Any:
    """A page of ``width`` CSS pixels showing ``html``; console errors, page errors and any
    request the page makes (a mail must make none) are appended to ``problems``."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    if problems is not None:
        watch(page, problems)
    page.set_content(html, wait_until="load")
    return page


def watch(page: Any, problems: list[str]) -> None:
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))


def document_width(page: Any) -> int:
    """How wide the laid-out document is: wider than the viewport means a sideways scroll."""
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth,"
            " document.body ? document.body.scrollWidth : 0)"
        )
    )


def overflowing(page: Any) -> list[str]:
    """Elements whose right edge passes the viewport's, as ``tag.class: right edge``; the
    message a failing width test prints, so the culprit is named."""
    return list(
        page.evaluate(
            """() => {
              const out = [];
              const limit = document.documentElement.clientWidth;
              for (const el of document.querySelectorAll('body *')) {
                const box = el.getBoundingClientRect();
                if (box.width && box.right > limit + 0.5) {
                  out.push(`${el.tagName.toLowerCase()}${el.className ? '.' + el.className : ''}`
                    + `${el.id ? '#' + el.id : ''}: right ${Math.round(box.right)}`
                    + ` > ${limit} (${(el.textContent || '').trim().slice(0, 40)})`);
                }
              }
              return out.slice(0, 12);
            }"""
        )
    )


def assert_fits(page: Any, what: str) -> None:
    width = page.viewport_size["width"]
    laid_out = document_width(page)
    assert laid_out <= width, f"{what} is {laid_out}px wide at {width}px: {overflowing(page)}"


def in_view_horizontally(page: Any, selector: str) -> list[str]:
    """The elements matching ``selector`` whose box is not wholly inside the viewport's width
    (an empty list: every one can be seen without scrolling sideways)."""
    return list(
        page.evaluate(
            """(selector) => {
              const limit = document.documentElement.clientWidth;
              return [...document.querySelectorAll(selector)]
                .filter(el => { const b = el.getBoundingClientRect();
                                return b.left < -0.5 || b.right > limit + 0.5 || !b.width; })
                .map(el => el.outerHTML.slice(0, 80));
            }""",
            selector,
        )
    )


@dataclass(frozen=True)
class Violation:
    rule: str
    impact: str
    help: str
    targets: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.impact} {self.rule}: {self.help} at {', '.join(self.targets[:4])}"


def _axe_script() -> str:
    try:
        import axe_playwright_python
    except ImportError:
        pytest.fail(f"the Python package axe-playwright-python is missing: {INSTALL_HINT}")
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text("utf-8")


def axe_violations(page: Any) -> list[Violation]:
    """axe-core's serious and critical violations on the page as it stands."""
    page.add_script_tag(content=_axe_script())
    found = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        Violation(
            item["id"],
            item["impact"],
            item["help"],
            tuple(str(node["target"]) for node in item["nodes"]),
        )
        for item in found
        if item.get("impact") in BLOCKING_IMPACTS
    ]
