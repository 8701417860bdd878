"""A new user's first run, for real: in a fresh venv (``python3 -m venv``, nothing borrowed
from this environment, every dependency resolved by pip from the package index):

* README's first Quick start command, exactly as written, in a copy of the repository;
* ``pip install .`` (not ``-e``), the source deleted, then ``pbem run`` in an empty folder
  (templates and migrations are package data).

Each time ``pbem run`` migrates, serves the API, sends a game's first mail to ``var/mail`` and
stops with status 0 on Ctrl-C.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIP = shutil.ignore_patterns(
    ".git", ".venv", "venv", "var", "build", "dist", "*.egg-info", "__pycache__", "*.eml"
)

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_venv(where: Path) -> Path:
    """A fresh venv with pip and nothing else; its ``bin`` directory."""
    python = Path(sys.base_prefix) / "bin" / "python3"
    subprocess.run([str(python), "-m", "venv", str(where)], check=True)
    return where / "bin"


def clean_env(venv_bin: Path, **extra: str) -> dict[str, str]:
    """The environment of a shell with the venv activated, and no setting of ours."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    for name in ("PYTHONPATH", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PYTHONHOME"):
        env.pop(name, None)
    path = env.get("PATH", "").split(os.pathsep)
    others = [part for part in path if part != str(Path(sys.executable).parent)]
    env["PATH"] = os.pathsep.join([str(venv_bin), *others])
    env["VIRTUAL_ENV"] = str(venv_bin.parent)
    return {**env, **extra}


def api(url: str, token: str | None = None, data: object = None) -> dict:
    request = urllib.request.Request(url, json.dumps(data).encode() if data else None)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return dict(json.loads(answer.read()))


def wait_for(check, seconds: float, what: str):  # type: ignore[no-untyped-def]
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if found := check():
                return found
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def quick_start_run_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    first = re.findall(r"```sh\n(.+?)\n```", quick_start)[0]
    assert first.endswith("pbem run"), first
    return first


def test_readmes_first_command_as_written_in_a_fresh_venv_serves_and_mails(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    venv_bin = make_venv(tmp_path / "venv")
    port = free_port()
    env = clean_env(
        venv_bin, PBEM_PORT=str(port), PBEM_SMTPD_PORT=str(free_port()), PBEM_SWEEP_SECONDS="2"
    )
    command = ["bash", "-c", quick_start_run_command()]
    serve_and_mail(command, source, env, port, venv_bin / "pbem")


def test_pip_install_dot_then_pbem_run_in_an_empty_folder_serves_and_mails(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    venv_bin = make_venv(tmp_path / "venv")
    subprocess.run(
        [str(venv_bin / "python"), "-m", "pip", "install", "-q", "."],
        cwd=source,
        check=True,
        env=clean_env(venv_bin),
    )
    shutil.rmtree(source)  # nothing may be read from the source tree from now on
    empty = tmp_path / "empty"
    empty.mkdir()
    located = subprocess.run(
        [
            str(venv_bin / "python"),
            "-c",
            "import service.mail.render as r; print(r.TEMPLATE_DIR.resolve())",
        ],
        cwd=empty,
        env=clean_env(venv_bin),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert located.startswith(str(tmp_path / "venv")), located
    assert (Path(located) / "turn_resolved" / "text.txt").is_file(), f"no templates in {located}"

    port = free_port()
    env = clean_env(venv_bin, PBEM_SMTPD_PORT=str(free_port()), PBEM_SWEEP_SECONDS="2")
    pbem = venv_bin / "pbem"
    serve_and_mail([str(pbem), "run", "--port", str(port)], empty, env, port, pbem)


def running(server: subprocess.Popen[str], log: Path) -> bool:
    if server.poll() is not None:
        raise AssertionError(f"pbem run stopped ({server.returncode}):\n{log.read_text()}")
    return True


def serve_and_mail(
    command: list[str], folder: Path, env: dict[str, str], port: int, pbem: Path
) -> None:
    """Start ``command`` (ending in ``pbem run``) in ``folder``: the API answers, a new game's
    first mail lands in ``folder/var/mail``, and Ctrl-C stops everything with status 0."""
    log = folder.parent / "run.log"  # a file, not a pipe: pip and the processes talk a lot
    with log.open("w") as out:
        server = subprocess.Popen(
            command,
            cwd=folder,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    try:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_for(lambda: running(server, log) and api(base + "/catalog"), 300, "the API")
        token = subprocess.run(
            [str(pbem), "player", "add", "Ada", "ada@example.org", "--role", "admin"],
            cwd=folder,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        bo = api(base + "/players", token, {"name": "Bo", "emails": ["bo@example.org"]})
        game = {"game": "epaminondas", "seats": [1, bo["player"]["id"]]}
        api(base + "/games", token, game)
        mail_dir = folder / "var" / "mail"
        sent = wait_for(lambda: sorted(mail_dir.glob("*.eml")), 120, "mail in var/mail")
    finally:
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole group
        try:
            server.wait(timeout=90)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
            raise AssertionError(f"pbem run did not stop on Ctrl-C:\n{log.read_text()}") from None
    assert server.returncode == 0, log.read_text()
    message = email.message_from_bytes(sent[0].read_bytes(), policy=email.policy.default)
    assert not message.defects
    assert "Epaminondas" in str(message["Subject"])
