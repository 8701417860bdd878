"""Real Celery worker (and beat) processes for integration tests, on this run's database
and a broker of its own: Redis (a queue named for this run) when ``REDIS_URL`` is set,
otherwise kombu's SQLAlchemy transport on a fresh SQLite file."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from service import db
from service.config import Settings
from tests.service.conftest import TOYS, emptied

ROOT = Path(__file__).resolve().parents[2]
POLL_LIMIT = 120  # seconds a test waits for the workers before it gives up


def live_env(database_url: str, var_dir: Path) -> dict[str, str]:
    queue = f"pbem-test-{secrets.token_hex(4)}"
    broker = os.environ.get("REDIS_URL") or f"sqla+sqlite:///{var_dir / 'broker.sqlite'}"
    return {
        "DATABASE_URL": database_url,
        "PBEM_VAR_DIR": str(var_dir),
        "PBEM_GAME_MODULES": TOYS,
        "PBEM_QUEUE": queue,
        "CELERY_BROKER_URL": broker,
        "PBEM_SWEEP_SECONDS": "1",
        "PBEM_REQUEUE_SECONDS": "5",
    }


def settings_from(env: dict[str, str]) -> Settings:
    return Settings.from_env(env)


@contextmanager
def live_database(env: dict[str, str]) -> Iterator[db.Database]:
    """The run's database, emptied, with this process's Celery app set up as the workers' is
    (so that what the test enqueues reaches them)."""
    from workers.app import configure

    settings = settings_from(env)
    configure(settings)
    database = emptied(db.configure(settings))
    yield database
    database.engine.dispose()


@contextmanager
def worker_processes(env: dict[str, str], count: int = 1, beat: bool = False) -> Iterator[None]:
    """``count`` solo-pool worker processes; the first also runs beat when asked."""
    process_env = {**os.environ, **env, "PYTHONPATH": str(ROOT)}
    processes = []
    for index in range(count):
        command = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "workers.app",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "-n",
            f"test{index}-{env['PBEM_QUEUE']}@%h",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]
        if beat and index == 0:
            command.append("--beat")
        processes.append(subprocess.Popen(command, cwd=ROOT, env=process_env))
    try:
        yield
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def wait_for(check: Callable[[], Any], what: str) -> Any:
    """Poll until ``check()`` is truthy (the workers are asynchronous)."""
    deadline = time.monotonic() + POLL_LIMIT
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"workers did not {what} within {POLL_LIMIT} s")


def web_argv(port: int) -> list[str]:
    """Procfile's ``web`` command (after its migration step), bound to loopback ``port``: a
    test that starts the web process follows whatever the Procfile runs."""
    import re
    import shlex

    line = next(
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")
    )
    command = line.partition(":")[2].split("&&")[-1].strip()
    command = command.replace("${PORT:-5000}", str(port)).replace("0.0.0.0", "127.0.0.1")
    words = shlex.split(re.sub(r"\$PORT\b", str(port), command))
    return [sys.executable, "-m", *words] if words[0] in ("flask", "gunicorn") else words


@contextmanager
def web_process(env: dict[str, str], port: int) -> Iterator[str]:
    """The web process as ``Procfile`` starts it, on ``env``'s database; yields its base URL
    once it answers. Its output goes to this test's output."""
    import urllib.request

    bind = {"PORT": str(port), "PBEM_WEB_BIND": f"127.0.0.1:{port}"}
    process_env = {**os.environ, **env, **bind, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(web_argv(port), cwd=ROOT, env=process_env)
    url = f"http://127.0.0.1:{port}"
    try:

        def answers() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"the web process exited with {process.returncode}")
            try:
                with urllib.request.urlopen(url + "/api/v1/health", timeout=5):
                    return True
            except OSError:
                return False

        wait_for(answers, "start the web process")
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
