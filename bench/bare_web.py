"""The ceiling of the move API benchmark: a bare Flask app with one JSON route, served by
gunicorn with the same options as the service's web process (``service/gunicorn_conf.py``
when present: the same worker class, processes and threads), loaded by the same clients.

``python3 bench/bare_web.py`` measures it alone; ``bench/move_api.py`` runs it too.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from flask import Flask, request

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def create_app() -> Flask:
    app = Flask(__name__)

    @app.post("/echo/<int:gid>")
    def echo(gid: int) -> Any:
        data = request.get_json(force=True)
        return {"game": {"id": gid, "turn": data.get("turn"), "text": data.get("text")}}

    return app


def argv(port: int) -> list[str]:
    config = Path(__file__).resolve().parents[1] / "service" / "gunicorn_conf.py"
    command = [sys.executable, "-m", "gunicorn"]
    if config.exists():
        command += ["--config", str(config)]
    return [*command, "--bind", f"127.0.0.1:{port}", "bench.bare_web:create_app()"]


def measure(clients: int, seconds: float) -> dict[str, float]:
    from bench import harness, move_api

    port = harness.free_port()
    with harness.processes() as running:
        running.start(argv(port), {"PYTHONPATH": str(harness.ROOT)}, ready="Booting worker")
        move_api.wait_http(port, "/echo/1")
        plan = [
            [(f"/echo/{c * 1000 + i}", "", {"turn": i, "text": "a1-a2"}) for i in range(10**5)]
            for c in range(clients)
        ]
        return move_api.load(port, plan, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15)
    args = parser.parse_args()
    figures = measure(args.clients, args.seconds)
    print(
        f"bare Flask+gunicorn: {figures['rate']:.0f} requests/s, p50 {figures['p50']:.1f} ms, "
        f"p99 {figures['p99']:.1f} ms at {args.clients} connections"
    )


if __name__ == "__main__":
    main()
