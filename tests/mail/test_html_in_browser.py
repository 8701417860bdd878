"""The HTML mails open in a real browser (headless Chromium) without errors or outside requests.

The browser is ``tests/browser.py``'s (the system Chromium, never ``playwright install``). Set
``MAIL_SCREENSHOTS_DIR`` to keep one PNG per game there for a person to look at.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from service.mail.render import render_email
from tests.browser import browser
from tests.mail.scenarios import BOARD_GAMES, context

MAIL_COLUMN = 640
"""Webmail shows a message in a column about this wide; the board must fit in it."""

__all__ = ["browser"]  # the module's Chromium fixture


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_turn_resolved_html_renders_cleanly(browser: Any, name: str, tmp_path: Path) -> None:
    html = render_email("turn_resolved", context("turn_resolved", name)).html
    page = browser.new_page(viewport={"width": 720, "height": 800})
    problems: list[str] = []
    page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}"))
    page.on("pageerror", lambda error: problems.append(f"page error: {error}"))
    page.on("request", lambda request: problems.append(f"request: {request.url}"))
    page.set_content(html, wait_until="load")
    board = page.locator("table[aria-label$='from top to bottom']")
    box = board.bounding_box()
    shot = tmp_path / f"{name}.png"
    page.screenshot(path=str(shot), full_page=True)
    page.close()

    assert not problems
    assert shot.stat().st_size > 0
    assert box is not None and box["width"] <= MAIL_COLUMN
    keep = os.environ.get("MAIL_SCREENSHOTS_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
