"""Findings 4 and 5: the web process, with no proxy in front, survives slow and malformed
clients.

The web process runs for real, started as ``Procfile``'s ``web`` line starts it (gunicorn
with ``service/gunicorn_conf.py``), on a free loopback port and this run's database, and is
spoken to over raw sockets:

* while 20 slow clients hold connections (bodies announced and never sent, or heads trickled
  a byte at a time), a normal request is still answered within a second;
* every malformed request (false chunked encodings, bad chunk sizes, both Content-Length and
  Transfer-Encoding, bad Content-Lengths, oversized heads, too many headers, bad versions,
  NUL in headers) gets a 4xx with the API's JSON error shape, nothing is logged as an
  unexpected error, and the server answers normally afterwards;
* it listens on 127.0.0.1 unless ``PBEM_WEB_BIND`` says otherwise.
"""

from __future__ import annotations

import io
import json
import os
import runpy
import shlex
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from service import db, players
from tests.service.conftest import TOYS

ROOT = Path(__file__).resolve().parents[2]
SLOW_CLIENTS = 20
ANSWER_WITHIN = 1.0  # seconds; the one time bound of this suite (the finding: 64 s)

pytestmark = pytest.mark.integration


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def procfile_web_command() -> list[str]:
    """``Procfile``'s ``web`` command after its migration step (the tests migrated already)."""
    line = next(
        line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")
    )
    words = shlex.split(line.partition(":")[2].split("&&")[-1])
    assert words[0] == "gunicorn", words
    return [sys.executable, "-m", *words]


class Web:
    def __init__(self, port: int, log: Path) -> None:
        self.port, self.log = port, log

    def exchange(self, data: bytes, timeout: float = 10) -> bytes:
        """Send raw bytes, read until the server closes the connection (or ``timeout``)."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            sock.sendall(data)
            return read_to_close(sock)

    def get(self, path: str, token: str = "") -> tuple[int, dict[str, str], bytes]:
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        head = f"GET {path} HTTP/1.1\r\nHost: t\r\n{auth}Connection: close\r\n\r\n"
        return parse(self.exchange(head.encode()))


def read_to_close(sock: socket.socket) -> bytes:
    answer = b""
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:  # the server closed with our unread bytes in its buffer
            return answer
        if not data:
            return answer
        answer += data


def parse(answer: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    return status, {key.lower(): value for key, value in headers.items()}, body


@pytest.fixture(scope="module")
def web(migrated: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    folder = tmp_path_factory.mktemp("web")
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    env.update(
        DATABASE_URL=migrated,
        PBEM_VAR_DIR=str(folder / "var"),
        PBEM_GAME_MODULES=TOYS,
        PBEM_WEB_WORKERS="2",
        PORT=str(port),  # and no PBEM_WEB_BIND: the default bind
        PYTHONPATH=str(ROOT),
    )
    log = folder / "web.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            procfile_web_command(), cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_until_answering(Web(port, log), server)
        yield Web(port, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=40)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def wait_until_answering(web: Web, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the web process stopped:\n{web.log.read_text()}")
        try:
            if web.get("/api/v1/catalog")[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the web process did not answer:\n{web.log.read_text()}")


# --- slow clients -------------------------------------------------------------------------


def hold_slow_bodies(port: int, count: int) -> list[socket.socket]:
    """Each announces ``Content-Length: 60000``, sends 2 bytes, then idles."""
    held = []
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(
            b"POST /api/v1/players HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 60000\r\n\r\n{}"
        )
        held.append(sock)
    return held


def hold_slow_heads(port: int, count: int, stop: threading.Event) -> list[socket.socket]:
    """Each trickles a request head that never ends, a byte every 0.2 s (from one thread)."""
    held = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(count)]
    head = b"GET /api/v1/catalog HTTP/1.1\r\nHost: t\r\nX-Slow: " + b"a" * 1000

    def trickle() -> None:
        for byte in head:
            for sock in held:
                sock.send(bytes([byte]))
            if stop.wait(0.2):
                return

    threading.Thread(target=trickle, daemon=True).start()
    return held


def still_open(sock: socket.socket) -> bool:
    """The server has neither answered nor closed this connection."""
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)
        return False  # an answer, or the end of the connection
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)


def best_latency(web: Web, attempts: int = 3) -> float:
    """Seconds for ``GET /api/v1/catalog``, the best of a few (a loaded 2-core machine can
    stall any one request; a server stalled by the slow clients stalls every one)."""
    times = []
    for _ in range(attempts):
        began = time.monotonic()
        try:
            status, _, _ = web.get("/api/v1/catalog")
            assert status == 200
            times.append(time.monotonic() - began)
        except TimeoutError:
            times.append(float("inf"))
    return min(times)


@pytest.mark.parametrize("kind", ["slow bodies", "slow heads"])
def test_a_normal_request_is_answered_within_a_second_while_20_slow_clients_hold_connections(
    web: Web, kind: str
) -> None:
    stop = threading.Event()
    if kind == "slow bodies":
        held = hold_slow_bodies(web.port, SLOW_CLIENTS)
    else:
        held = hold_slow_heads(web.port, SLOW_CLIENTS, stop)
    try:
        time.sleep(0.5)  # every slow client is in: accepted and read from
        latency = best_latency(web)
        print(f"\n{kind}: GET /api/v1/catalog in {latency * 1000:.1f} ms (best of 3)")
        assert latency < ANSWER_WITHIN
        assert all(still_open(sock) for sock in held), "the slow clients were not held"
    finally:
        stop.set()
        for sock in held:
            sock.close()


# --- malformed HTTP -----------------------------------------------------------------------

POST = b"POST /api/v1/players HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
GET = b"GET /api/v1/catalog HTTP/1.1\r\nHost: t\r\n"
TOKEN = b"Authorization: Bearer a-token\r\n"
"""Any token: a route that needs one refuses a request without it before reading its body."""

MALFORMED: dict[str, tuple[bytes, int]] = {
    # framing of the body
    "false chunked (a JSON body)": (POST + b'Transfer-Encoding: chunked\r\n\r\n{"a": 1}\r\n', 400),
    "chunk size not hex": (POST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", 400),
    "negative chunk size": (POST + b"Transfer-Encoding: chunked\r\n\r\n-2\r\n{}\r\n0\r\n\r\n", 400),
    "chunk larger than any body": (
        POST + b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n{}",
        413,
    ),
    "chunk not terminated": (
        POST + b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}xx0\r\n\r\n",
        400,
    ),
    "bad chunk extension": (
        POST + b"Transfer-Encoding: chunked\r\n\r\n2;\x00\r\n{}\r\n0\r\n\r\n",
        400,
    ),
    "Content-Length and Transfer-Encoding": (
        POST + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    ),
    "unknown transfer coding": (POST + b"Transfer-Encoding: gzip\r\n\r\n", 400),
    "chunked not last": (POST + b"Transfer-Encoding: chunked, gzip\r\n\r\n", 400),
    "Transfer-Encoding in HTTP/1.0": (
        POST.replace(b"HTTP/1.1", b"HTTP/1.0") + b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        400,
    ),
    "negative Content-Length": (POST + b"Content-Length: -1\r\n\r\n", 400),
    "huge Content-Length": (POST + b"Content-Length: 99999999999999999999999\r\n\r\n", 413),
    "two different Content-Lengths": (
        POST + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        400,
    ),
    "Content-Length not a number": (POST + b"Content-Length: 2x\r\n\r\n{}", 400),
    # the head
    "oversized header field": (GET + b"X-Big: " + b"a" * 20_000 + b"\r\n\r\n", 431),
    "oversized head": (GET + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 5000) for i in range(10)), 431),
    "oversized request line": (b"GET /api/v1/catalog?" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n", 414),
    "too many headers": (GET + b"".join(b"X-%d: a\r\n" % i for i in range(200)) + b"\r\n", 431),
    "HTTP/2.0 as text": (GET.replace(b"HTTP/1.1", b"HTTP/2.0") + b"\r\n", 400),
    "HTTP/9.9": (GET.replace(b"HTTP/1.1", b"HTTP/9.9") + b"\r\n", 400),
    "no HTTP version": (GET.replace(b" HTTP/1.1", b"") + b"\r\n", 400),
    "not HTTP at all (a TLS hello)": (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", 400),
    "lower-case method": (GET.replace(b"GET", b"get") + b"\r\n", 400),
    "NUL in a header value": (GET + b"X-A: a\x00b\r\n\r\n", 400),
    "NUL in a header name": (GET + b"X\x00A: ab\r\n\r\n", 400),
    "space in a header name": (GET + b"X A: b\r\n\r\n", 400),
    "bare LF line ends": (GET.replace(b"\r\n", b"\n") + b"\n", 400),
}


def assert_json_error(answer: bytes, status: int) -> None:
    got, headers, body = parse(answer)
    assert got == status, answer[:300]
    assert headers["content-type"] == "application/json", headers
    error = json.loads(body)["error"]
    assert isinstance(error["code"], str) and error["code"], error
    assert isinstance(error["message"], str) and error["message"], error


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_http_gets_a_json_4xx_and_the_server_answers_afterwards(
    web: Web, name: str
) -> None:
    data, status = MALFORMED[name]
    assert_json_error(web.exchange(data), status)
    assert web.get("/api/v1/catalog")[0] == 200


def test_a_head_cut_short_by_the_client_gets_nothing_and_a_clean_close(web: Web) -> None:
    """The client half-closes mid-head: no request exists, so HTTP allows no answer."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
        sock.sendall(b"POST /api/v1/players HTTP/1.1\r\nHost: t\r\nContent-Le")
        sock.shutdown(socket.SHUT_WR)
        assert read_to_close(sock) == b""
    assert web.get("/api/v1/catalog")[0] == 200


def test_a_well_formed_chunked_body_reaches_the_api_whole(web: Web) -> None:
    """The server takes chunked bodies it can read: the JSON gate sees the joined chunks."""
    body = b'{"name": NaN}'
    chunks = b"5\r\n" + body[:5] + b"\r\n8\r\n" + body[5:] + b"\r\n0\r\n\r\n"
    answer = web.exchange(
        POST + TOKEN + b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunks
    )
    status, _, payload = parse(answer)
    assert status == 400
    assert json.loads(payload)["error"]["code"] == "invalid_json"  # the gate read it


def test_after_the_fuzz_nothing_was_logged_as_unexpected_and_accounts_still_work(
    web: Web, database: db.Database
) -> None:
    for data, _ in MALFORMED.values():
        web.exchange(data)
    with database.transaction() as session:
        _, token = players.create(session, None, {"name": "Ada", "emails": ["ada@example.org"]})
    status, _, body = web.get("/api/v1/players/me", token)
    assert status == 200 and json.loads(body)["player"]["name"] == "Ada"
    log = web.log.read_text()
    assert "unexpected error" not in log
    assert "Traceback" not in log


# --- inside Flask: a body the server fails to read ----------------------------------------


class FalseChunks(io.BytesIO):
    """``wsgi.input`` as gunicorn's sync worker gives it for a false ``chunked``: reading
    raises its ``InvalidChunkSize`` (an ``OSError``)."""

    def read(self, size: int | None = -1) -> bytes:
        from gunicorn.http.errors import InvalidChunkSize

        raise InvalidChunkSize(b'{"a": 1}')

    def readinto(self, buffer: Any) -> int:
        return len(self.read())


def test_a_body_the_server_cannot_read_is_a_clear_400_not_a_500(app: Flask) -> None:
    response = app.test_client().post(
        "/api/v1/players",
        headers={
            "Content-Type": "application/json",
            "Content-Length": "8",
            "Authorization": "Bearer a-token",
        },
        input_stream=FalseChunks(b'{"a": 1}'),
    )
    assert response.status_code == 400, response.get_data(as_text=True)
    error = response.get_json()["error"]
    assert error["code"] == "bad_body"
    assert "cannot be read" in error["message"]


# --- where it listens ----------------------------------------------------------------------


def gunicorn_settings(monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """``service/gunicorn_conf.py`` as gunicorn reads it, under ``env`` alone."""
    for name in ("PBEM_WEB_BIND", "PORT"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_module("service.gunicorn_conf")


def test_the_web_process_listens_on_loopback_unless_pbem_web_bind_opens_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert gunicorn_settings(monkeypatch)["bind"] == "127.0.0.1:5000"
    assert gunicorn_settings(monkeypatch, PORT="8123")["bind"] == "127.0.0.1:8123"
    opened = gunicorn_settings(monkeypatch, PBEM_WEB_BIND="0.0.0.0:8000")
    assert opened["bind"] == "0.0.0.0:8000"
    assert opened["worker_class"] == "service.web_worker.BufferingWorker"


def test_pbem_run_listens_on_loopback_unless_pbem_web_bind_opens_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from service.cli import server

    monkeypatch.delenv("PBEM_WEB_BIND", raising=False)
    assert server.web_address(5000) == ("127.0.0.1", 5000)
    monkeypatch.setenv("PBEM_WEB_BIND", "0.0.0.0:8000")
    assert server.web_address(5000) == ("0.0.0.0", 8000)
    monkeypatch.setenv("PBEM_WEB_BIND", "[::]:8001")
    assert server.bind_option(*server.web_address(5000)) == "[::]:8001"
