"""Slow clients: the latency of normal API requests (``GET /api/v1/catalog``, one at a time)
to the web process exactly as ``Procfile`` starts it, first alone, then while ``--slow``
clients hold connections open:

* slow bodies: each announces ``Content-Length: 60000``, sends 2 bytes, then idles;
* slow headers: each trickles a request head that never ends, one byte every half second.

A slow client the server closes connects again at once, so ``--slow`` connections stay held.
A normal request not answered within ``--give-up`` seconds counts as stalled. Runs on a
SQLite database of its own (no PostgreSQL needed)::

    python3 bench/slow_clients.py --slow 20 --seconds 10
"""

from __future__ import annotations

import argparse
import http.client
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness, move_api

SLOW_BODY = (
    b"POST /api/v1/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 60000\r\n\r\n{}"
)
SLOW_HEAD = b"GET /api/v1/catalog HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 10_000


def slow_body(port: int, stop: threading.Event) -> None:
    """Announce a body of 60,000 bytes, send 2 of them, idle; again when closed."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                sock.sendall(SLOW_BODY)
                _idle_until_closed(sock, stop, lambda: None)
        except OSError:
            stop.wait(0.1)


def slow_head(port: int, stop: threading.Event) -> None:
    """Send a request head one byte every half second, never ending it; again when closed."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
                _idle_until_closed(sock, stop, trickle(sock))
        except OSError:
            stop.wait(0.1)


def trickle(sock: socket.socket) -> Callable[[], object]:
    """Each call sends the next byte of the never-ending head."""
    head = iter(SLOW_HEAD)
    return lambda: sock.send(bytes([next(head, 97)]))


def _idle_until_closed(sock: socket.socket, stop: threading.Event, tick: Callable) -> None:
    sock.settimeout(0.5)
    while not stop.is_set():
        tick()
        try:
            if not sock.recv(4096):
                return  # the server closed it
        except TimeoutError:
            continue


def measure(port: int, seconds: float, give_up: float) -> dict[str, float]:
    """Normal requests one after another for ``seconds``: latencies (ms) and stalls."""
    latencies: list[float] = []
    stalled = failed = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        began = time.monotonic()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=give_up)
            connection.request("GET", "/api/v1/catalog")
            answer = connection.getresponse()
            answer.read()
            connection.close()
            if answer.status != 200:
                failed += 1
            latencies.append((time.monotonic() - began) * 1000)
        except TimeoutError:
            stalled += 1
        except OSError:
            failed += 1
        time.sleep(0.05)
    return {
        "requests": len(latencies),
        "p50": harness.median(latencies),
        "p99": harness.percentile(latencies, 0.99),
        "max": max(latencies, default=float("nan")),
        "stalled": stalled,
        "failed": failed,
    }


def with_slow_clients(
    port: int, client: Callable[[int, threading.Event], None], count: int, args: argparse.Namespace
) -> dict[str, float]:
    stop = threading.Event()
    threads = [
        threading.Thread(target=client, args=(port, stop), daemon=True) for _ in range(count)
    ]
    for thread in threads:
        thread.start()
    time.sleep(1)  # every slow client connected and sent its first bytes
    try:
        return measure(port, args.seconds, args.give_up)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)


def line(what: str, figures: dict[str, float]) -> str:
    return (
        f"{what:<32} {figures['requests']:>5.0f} answered, p50 {figures['p50']:7.1f} ms, "
        f"p99 {figures['p99']:7.1f} ms, max {figures['max']:7.1f} ms, "
        f"{figures['stalled']:.0f} stalled > give-up, {figures['failed']:.0f} failed"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--slow", type=int, default=20, help="slow clients at once")
    parser.add_argument("--seconds", type=float, default=10, help="per measurement")
    parser.add_argument("--give-up", type=float, default=5, help="a request's time limit")
    args = parser.parse_args()

    var = Path(tempfile.mkdtemp(prefix="pbem-slow-"))
    env = {
        "DATABASE_URL": f"sqlite:///{var / 'pbem.sqlite'}",
        "PBEM_VAR_DIR": str(var),
        "PYTHONPATH": str(harness.ROOT),
    }
    port = harness.free_port()
    argv = move_api.web_argv(port)
    with harness.processes() as running:
        upgrade = "from service.cli import main; main(['db', 'upgrade'])"
        running.start([sys.executable, "-c", upgrade], env).wait()
        running.start(argv, {**env, "PORT": str(port), "PBEM_WEB_BIND": f"127.0.0.1:{port}"})
        move_api.wait_http(port, "/api/v1/catalog")
        measure(port, 2, args.give_up)  # warm every worker up
        print(f"web = {' '.join(argv[2:])}; {args.slow} slow clients; {harness.load_note()}")
        print(line("no slow client", measure(port, args.seconds, args.give_up)))
        print(line("slow bodies", with_slow_clients(port, slow_body, args.slow, args)))
        print(line("slow headers", with_slow_clients(port, slow_head, args.slow, args)))


if __name__ == "__main__":
    main()
