"""What request validation costs the move route: in process, through Flask's test client.

Run from the project root (or with ``PYTHONPATH`` set to another tree, to compare)::

    python3 bench/move_validation.py --moves 600 --reads 20000

Prints (1) the time the JSON gate takes to read and validate one move body
(``{"turn", "text"}``) on its own, and (2) the latency of ``POST /games/ID/moves`` with legal
Epaminondas moves on a fresh SQLite database (median and p90 of every request, the database
work included), so the gate's share of a move is plain. No server, broker or mail: tasks are
not run and mail stays in the outbox.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def gate_figure(reads: int) -> float:
    """Microseconds per gate read of a move body (the route's model, as the app picks it)."""
    from service.api import gate

    rule = "/api/v1/games/<int:gid>/moves"
    schema: Any = (
        gate.model_for("POST", rule)
        if hasattr(gate, "model_for")
        else gate.schema_for("POST", rule)  # type: ignore[attr-defined]
    )
    raw = json.dumps({"turn": 17, "text": "a1-a3"}).encode()
    began = time.perf_counter()
    for _ in range(reads):
        gate.read(raw, schema)
    return (time.perf_counter() - began) / reads * 1e6


def route_figures(moves: int, seed: int) -> list[float]:
    """Milliseconds per ``POST /games/ID/moves``, each a legal move of a random line."""
    from engine import new_game
    from service import db, migrate, players
    from service.app import create_app
    from service.config import Settings

    var = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    settings = Settings.from_env(
        {"DATABASE_URL": f"sqlite:///{var / 'bench.sqlite'}", "PBEM_VAR_DIR": str(var)}
    )
    database = db.configure(settings, dispatch=lambda name, args: None)
    migrate.upgrade(database)
    app = create_app(settings, dispatch=lambda name, args: None)
    client = app.test_client()
    with database.transaction() as session:
        made = [
            players.create(session, None, {"name": n, "emails": [f"{n}@example.org"]})
            for n in ("ann", "ben")
        ]
        ids, tokens = [p.id for p, _ in made], [t for _, t in made]
    rng, timings = random.Random(seed), []
    while len(timings) < moves:
        game = client.post(
            "/api/v1/games",
            json={"game": "epaminondas", "seats": ids, "options": {"board": "8x8"}},
            headers={"Authorization": f"Bearer {tokens[0]}"},
        ).get_json()["game"]
        state = new_game("epaminondas", {"board": "8x8"}).initial_state()
        turn = 1
        while not state.is_over and len(timings) < moves and turn < 120:
            seat = state.to_act[0]
            action = state.random_action(seat, rng)
            body = {"turn": turn, "text": state.format(action)}
            began = time.perf_counter()
            answer = client.post(
                f"/api/v1/games/{game['id']}/moves",
                json=body,
                headers={"Authorization": f"Bearer {tokens[seat]}"},
            )
            timings.append((time.perf_counter() - began) * 1000)
            assert answer.status_code == 200, answer.get_data(as_text=True)
            state, turn = state.play(seat, action).state, turn + 1
    database.engine.dispose()
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--reads", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import service

    print(f"tree: {Path(service.__file__).resolve().parents[1]}")
    print(f"gate, one move body: {gate_figure(args.reads):.1f} us per read")
    timings = sorted(route_figures(args.moves, args.seed)[20:])  # the first ones warm up
    p90 = timings[int(len(timings) * 0.9)]
    print(
        f"POST /games/ID/moves: {len(timings)} moves, median {statistics.median(timings):.2f} ms,"
        f" p90 {p90:.2f} ms"
    )


if __name__ == "__main__":
    main()
