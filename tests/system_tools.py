"""System programs some integration tests need (headless Chromium, Dovecot)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def require_system_tool(path: str | Path, install: str) -> None:
    """Skip a test whose program is missing on a developer's machine, with how to install it;
    fail it in CI (``CI=true``), where ``.ci/run`` installs the program, so a missing install
    step can never pass as a skip."""
    if Path(path).exists():
        return
    message = f"{path} is missing: {install} (.ci/run installs it)"
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail(message)
    pytest.skip(message)
