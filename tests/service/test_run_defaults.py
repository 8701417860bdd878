"""What ``pbem run`` and the web process choose when nothing is configured: the links in
mails follow the port the web listens on, the number of web processes fits the machine and
who shares it, every file goes under ``PBEM_VAR_DIR`` (none in the home folder), and each
``.eml`` file is named after its row, game, recipient and kind."""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from service import db
from service.config import Settings
from service.models import Outbox
from service.notify import eml_name
from tests.service.conftest import Client, emptied, make_settings, new_player, run_inline
from tests.service.test_run_ports import free_port

ROOT = Path(__file__).resolve().parents[2]

# -- the public URL follows the web's port --------------------------------------------------


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({}, "http://127.0.0.1:5000"),
        ({"PBEM_PORT": "5077"}, "http://127.0.0.1:5077"),
        ({"PORT": "8123"}, "http://127.0.0.1:8123"),
        ({"PBEM_PORT": "5077", "PORT": "8123"}, "http://127.0.0.1:5077"),
        ({"PBEM_WEB_BIND": "0.0.0.0:8000", "PBEM_PORT": "5077"}, "http://127.0.0.1:8000"),
        ({"PBEM_WEB_BIND": "192.0.2.7:8001"}, "http://192.0.2.7:8001"),
        ({"PBEM_WEB_BIND": "[::1]:8002"}, "http://[::1]:8002"),
        (
            {"PBEM_PORT": "5077", "PBEM_PUBLIC_URL": "https://pbem.example.org/"},
            "https://pbem.example.org",
        ),
    ],
)
def test_the_default_public_url_is_where_the_web_listens(env: dict[str, str], url: str) -> None:
    assert Settings.from_env(env).public_url == url


@pytest.fixture
def port_5077_service(migrated: str, tmp_path: Path) -> Iterator[db.Database]:
    settings = make_settings(migrated, tmp_path / "var", PBEM_PORT="5077")
    database = db.configure(settings, dispatch=run_inline)
    emptied(database)
    yield database
    database.engine.dispose()


def test_with_pbem_port_5077_the_mails_link_port_5077(port_5077_service: db.Database) -> None:
    from service import players
    from service.app import create_app

    app = create_app(port_5077_service.settings, dispatch=run_inline)
    with port_5077_service.transaction() as session:
        data = {"name": "Ada", "emails": ["ada@example.org"], "roles": ["admin"]}
        player, token = players.create(session, None, data)
        info = players.to_json(player, private=True)
    admin = Client(app.test_client(), token, info)
    alice, bob = new_player(admin, "Alice"), new_player(admin, "Bob")
    game = admin.ok("POST", "/games", {"game": "countdown", "seats": [alice.id, bob.id]}, 201)
    [mail, *_] = sorted(port_5077_service.settings.mail_dir.glob("*.eml"))
    text = mail.read_text()
    assert f"http://127.0.0.1:5077/games/{game['game']['id']}" in text
    assert "127.0.0.1:5000" not in text


# -- web processes ----------------------------------------------------------------------------


def gunicorn_conf(monkeypatch: pytest.MonkeyPatch, cores: int = 2, **env: str) -> dict[str, Any]:
    """``service/gunicorn_conf.py`` as gunicorn reads it, on a machine of ``cores`` cores."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.delenv("PBEM_WEB_WORKERS", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_module("service.gunicorn_conf")


@pytest.mark.parametrize(
    ("cores", "shared", "dedicated"), [(1, 1, 3), (2, 2, 5), (4, 4, 9), (32, 4, 9)]
)
def test_pbem_run_starts_one_web_process_a_core_at_most_four_and_procfile_more(
    monkeypatch: pytest.MonkeyPatch, cores: int, shared: int, dedicated: int
) -> None:
    conf = gunicorn_conf(monkeypatch, cores)
    assert conf["default_workers"](shared=True) == shared
    assert conf["workers"] == conf["default_workers"](shared=False) == dedicated


def test_pbem_web_workers_wins_over_either_default(monkeypatch: pytest.MonkeyPatch) -> None:
    conf = gunicorn_conf(monkeypatch, PBEM_WEB_WORKERS="7")
    assert conf["workers"] == conf["workers_setting"](shared=True) == 7


def test_the_web_process_opens_no_control_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    assert gunicorn_conf(monkeypatch)["control_socket_disable"] is True


# -- .eml names -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("row", "name"),
    [
        (
            Outbox(id=12, game_id=3, kind="opponent_moved", to_address="bob@example.org"),
            "00000012-game-3-bob@example.org-opponent_moved.eml",
        ),
        (
            Outbox(id=7, game_id=None, kind="league_invite", to_address="ann@example.org"),
            "00000007-ann@example.org-league_invite.eml",
        ),
        (
            Outbox(id=8, game_id=None, kind="held:help", to_address='"a/b\\c"*?<>|@x.org'),
            "00000008-_a_b_c______@x.org-held_help.eml",
        ),
    ],
)
def test_an_eml_name_carries_row_game_recipient_and_kind_in_safe_characters(
    row: Outbox, name: str
) -> None:
    assert eml_name(row) == name


def test_a_long_address_keeps_the_eml_name_within_what_file_systems_take() -> None:
    row = Outbox(id=1, game_id=2**31 - 1, kind="game_started", to_address="a" * 250 + "@x.org")
    assert len(eml_name(row).encode()) < 255


# -- nothing in the home folder -----------------------------------------------------------


def files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def wait_for(check: Callable[[], Any], seconds: float, what: str) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            if found := check():
                return found
        except OSError:
            pass
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


def api(url: str, token: str, data: object = None) -> Any:
    body = json.dumps(data).encode() if data is not None else None
    request = urllib.request.Request(url, data=body, method="POST" if body else "GET")
    request.add_header("Authorization", f"Bearer {token}")
    request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_pbem_run_writes_under_var_only_never_in_the_home_folder(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    folder.mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home)}
    for name in (
        *("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "PBEM_VAR_DIR", "PBEM_MAIL_DIR"),
        *("PBEM_PUBLIC_URL", "PBEM_WEB_BIND", "PBEM_PORT", "PORT", "XDG_RUNTIME_DIR"),
        *("PBEM_WEB_WORKERS", "PBEM_GAME_MODULES", "PBEM_MAIL_SENDER", "PBEM_SMTP_HOST"),
    ):
        env.pop(name, None)  # the embedded defaults; gunicorn falls back to the home folder
    env |= {"PBEM_SMTPD_PORT": str(free_port()), "PBEM_SWEEP_SECONDS": "1"}
    pbem = [sys.executable, "-c", "from service.cli import main; main()"]
    add = [*pbem, "player", "add", "Ada", "ada@example.org", "--role", "admin"]
    made = subprocess.run(add, cwd=folder, env=env, capture_output=True, text=True, check=True)
    token = made.stdout.strip()
    port = free_port()
    log = (tmp_path / "run.log").open("w")
    server = subprocess.Popen(
        [*pbem, "run", "--port", str(port)], cwd=folder, env=env, stdout=log, stderr=log
    )
    try:
        base = f"http://127.0.0.1:{port}/api/v1"
        wait_for(lambda: server.poll() is None and api(base + "/health", token), 120, "the API")
        seats = [
            api(base + "/players", token, {"name": name, "emails": [f"{name}@example.org"]})
            for name in ("ann", "ben")
        ]
        game = {"game": "epaminondas", "seats": [seat["player"]["id"] for seat in seats]}
        game_id = api(base + "/games", token, game)["game"]["id"]
        mails = wait_for(lambda: sorted((folder / "var/mail").glob("*.eml")), 120, "mail")
        text = mails[0].read_text()
        assert f"http://127.0.0.1:{port}/games/{game_id}" in text  # --port reached the worker
        time.sleep(3)  # beat ticks (PBEM_SWEEP_SECONDS=1) and writes its schedule
    finally:
        server.terminate()
        server.wait(timeout=60)
        log.close()
    assert server.returncode == 0, (tmp_path / "run.log").read_text()[-3000:]
    assert files_under(home) == []
    assert [name for name in files_under(folder) if not name.startswith("var")] == []
    assert any(name.startswith("celerybeat-schedule") for name in os.listdir(folder / "var"))
    booted = (tmp_path / "run.log").read_text().count("Booting worker with pid")
    assert booted == min(len(os.sched_getaffinity(0)), 4)  # the shared default, not 2n+1
