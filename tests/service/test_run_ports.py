"""``pbem run`` says so and exits 1 when a port it needs is taken (before starting anything)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def taken() -> Iterator[int]:
    """A loopback port some other server is listening on."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pbem_run(folder: Path, port: int, **env: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from service.cli import main; main()", "run"]
    environ = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        environ.pop(name, None)  # the embedded defaults, in the empty folder
    return subprocess.run(
        [*command, "--port", str(port)],
        cwd=folder,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_pbem_run_exits_1_when_the_web_port_is_taken(tmp_path: Path, taken: int) -> None:
    result = pbem_run(tmp_path, taken, PBEM_SMTPD_PORT=str(free_port()))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error: cannot start the web API on 127.0.0.1:{taken}: " in result.stderr
    assert "choose another with --port" in result.stderr
    assert "Traceback" not in result.stderr
    assert "API on" not in result.stdout


def test_pbem_run_exits_1_when_the_smtp_port_is_taken(tmp_path: Path, taken: int) -> None:
    result = pbem_run(tmp_path, free_port(), PBEM_SMTPD_PORT=str(taken))
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"error: cannot start the SMTP listener on 127.0.0.1:{taken}: " in result.stderr
    assert "set PBEM_SMTPD_PORT" in result.stderr
