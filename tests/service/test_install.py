"""A non-editable install works: ``pip install .`` into a fresh venv, then ``pbem run`` in an
empty folder migrates, serves the API and sends mail (templates and migrations are package
data, nothing is read from the source tree).

To stay fast the new venv borrows the running environment's third-party packages through a
``.pth`` file and pip installs the project alone (``--no-deps --no-build-isolation``), from a
copy of the source, so the project itself is a real wheel install.
"""

from __future__ import annotations

import email
import email.policy
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
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
    """A venv that sees this environment's packages (not the project: that is installed)."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "_borrowed.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


def clean_env(**extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    for name in ("PYTHONPATH", "DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
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


def test_pip_install_dot_then_pbem_run_in_an_empty_folder_serves_and_mails(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=SKIP)
    python = make_venv(tmp_path / "venv")
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "."],
        cwd=source,
        check=True,
        env=clean_env(),
    )
    shutil.rmtree(source)  # nothing may be read from the source tree from now on
    empty = tmp_path / "empty"
    empty.mkdir()
    located = subprocess.run(
        [str(python), "-c", "import service.mail.render as r; print(r.TEMPLATE_DIR.resolve())"],
        cwd=empty,
        env=clean_env(),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert located.startswith(str(tmp_path / "venv")), located
    assert (Path(located) / "turn_resolved" / "text.txt").is_file(), f"no templates in {located}"

    port = free_port()
    env = clean_env(PBEM_SMTPD_PORT=str(free_port()), PBEM_SWEEP_SECONDS="2")
    pbem = str(tmp_path / "venv" / "bin" / "pbem")
    server = subprocess.Popen(
        [pbem, "run", "--port", str(port)],
        cwd=empty,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_for(lambda: api(base + "/catalog"), 120, "the API")
        token = subprocess.run(
            [pbem, "player", "add", "Ada", "ada@example.org", "--role", "admin"],
            cwd=empty,
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        bo = api(base + "/players", token, {"name": "Bo", "emails": ["bo@example.org"]})
        game = {"game": "epaminondas", "seats": [1, bo["player"]["id"]]}
        api(base + "/games", token, game)
        mail_dir = empty / "var" / "mail"
        sent = wait_for(lambda: sorted(mail_dir.glob("*.eml")), 120, "mail in var/mail")
    finally:
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole group
        try:
            output = server.communicate(timeout=90)[0]
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            output = server.communicate()[0]
            raise AssertionError(f"pbem run did not stop on Ctrl-C:\n{output}") from None
    assert server.returncode == 0, output
    message = email.message_from_bytes(sent[0].read_bytes(), policy=email.policy.default)
    assert not message.defects
    assert "Epaminondas" in str(message["Subject"])
