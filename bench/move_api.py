"""Move API: 50 concurrent clients play legal moves in many alternating games (Epaminondas)
through the web process exactly as ``Procfile`` starts it.

Run from the project root (PostgreSQL and Redis as on CI, fresh schema and queue)::

    python3 bench/move_api.py --games 200 --seconds 20

Set-up makes the games through the service and plays each one out at random in process, so
every client holds a list of legal moves; during the run each client posts its games' moves
in turn (one game after another, each as the player to move) over its own connection, and
every answer must be 200. Printed: moves/s, p50/p99 latency; then the same clients against a
bare Flask + gunicorn JSON route (``bench/bare_web.py``) in the same run, and the ratios.
The clients are closed-loop (each sends its next move when the last is answered), so by
Little's law the mean latency is about clients / rate.

Open loop, ``--rate R``::

    python3 bench/move_api.py --games 200 --seconds 20 --rate 50

after a closed-loop warm-up of ``--warmup`` s (every server process loading and compiling),
sends moves at R per second whatever the answers (the games' moves in turn, round the games,
so one game's moves are games / R seconds apart); ``--clients`` connections carry them. Each
move's latency is measured from the time it was scheduled, so time spent queued (no free
connection, or its game's previous move not answered yet) counts. Printed: the rate reached,
p50/p99 of that latency, how many moves were late (sent more than ``--late-ms`` after their
time), failed (an answer other than 200, or none) or never answered (still queued a minute
after the last was due). No bare-route ceiling in this mode.
"""

from __future__ import annotations

import argparse
import http.client
import json
import queue
import random
import re
import shlex
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness

Plan = Sequence[Sequence[tuple[str, str, dict[str, Any]]]]
"""Per client: (path, bearer token, JSON body) requests in order."""


def web_argv(port: int) -> list[str]:
    """Procfile's ``web`` command (after its migration step) on a loopback port."""
    procfile = (harness.ROOT / "Procfile").read_text()
    line = next(line for line in procfile.splitlines() if line.startswith("web:"))
    command = line.partition(":")[2].split("&&")[-1].strip()
    command = command.replace("${PORT:-5000}", str(port)).replace("0.0.0.0", "127.0.0.1")
    command = re.sub(r"\$PORT\b", str(port), command)
    words = shlex.split(command)
    return [sys.executable, "-m", *words] if words[0] in ("flask", "gunicorn") else words


def wait_http(port: int, path: str) -> None:
    def up() -> bool:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request(
                "POST", path, body=b"{}", headers={"Content-Type": "application/json"}
            )
            connection.getresponse().read()
            connection.close()
            return True
        except OSError:
            return False

    harness.wait_until(up, 300, "the web server", 0.2)


def load(port: int, plan: Plan, seconds: float, warmup: float = 0) -> dict[str, float]:
    """Run every client's requests until ``seconds`` pass or its plan ends; the first
    ``warmup`` seconds (every server process loading and compiling) are not counted."""
    if warmup:
        done = _run(port, plan, warmup)
        plan = [requests[count:] for requests, count in zip(plan, done, strict=True)]
    latencies: list[list[float]] = [[] for _ in plan]
    failures: list[str] = []
    stop = time.monotonic() + seconds + 3600  # set when every client is ready
    start_gate = threading.Barrier(len(plan) + 1)

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        start_gate.wait()
        for path, token, body in plan[index]:
            if time.monotonic() >= stop:
                break
            headers = {"Content-Type": "application/json"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            began = time.perf_counter()
            for attempt in range(2):
                try:
                    connection.request("POST", path, body=json.dumps(body), headers=headers)
                    response = connection.getresponse()
                    text = response.read()
                    break
                except (http.client.HTTPException, OSError):
                    connection.close()  # a server that closes after each answer (sync workers)
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    if attempt:
                        raise
            latencies[index].append(time.perf_counter() - began)
            if response.status != 200:
                failures.append(f"{path}: {response.status} {text[:200]!r}")
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(len(plan))]
    for thread in threads:
        thread.start()
    start_gate.wait()
    began = time.monotonic()
    stop = began + seconds
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    every = [value for values in latencies for value in values]
    if failures:
        print(f"{len(failures)} failed requests, e.g. {failures[:3]}")
    return {
        "requests": len(every),
        "rate": len(every) / elapsed,
        "p50": harness.percentile(every, 0.5) * 1000,
        "p99": harness.percentile(every, 0.99) * 1000,
        "failures": len(failures),
        "done": [len(values) for values in latencies],
    }


def open_loop(
    port: int,
    per_game: Sequence[Sequence[tuple[str, str, dict[str, Any]]]],
    rate: float,
    seconds: float,
    connections: int,
    late_after: float,
    drain: float = 60,
) -> dict[str, float]:
    """Send move ``i`` (round the games) at ``i / rate`` s whatever the answers."""
    schedule: list[tuple[int, int]] = []  # (game, move) in sending order
    depth = max((len(moves) for moves in per_game), default=0)
    for k in range(depth):
        schedule += [(g, k) for g, moves in enumerate(per_game) if k < len(moves)]
    wanted = int(rate * seconds)
    if len(schedule) < wanted:
        print(f"only {len(schedule)} moves prepared for {wanted}: raise --games or --moves")
    schedule = schedule[:wanted]
    answered = {(g, k): threading.Event() for g, k in schedule}
    waiting: queue.Queue[tuple[float, int, int] | None] = queue.Queue()
    results: list[tuple[float, float, float, bool]] = []  # (due, sent, done, ok)
    failures: list[str] = []
    lock = threading.Lock()

    def sender() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while (item := waiting.get()) is not None:
            due, g, k = item
            if k:  # a game's move waits for the answer to its previous move
                answered[(g, k - 1)].wait(timeout=60)
            path, token, body = per_game[g][k]
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
            sent = time.monotonic()
            ok, note = False, ""
            try:
                connection.request("POST", path, body=json.dumps(body), headers=headers)
                response = connection.getresponse()
                text = response.read()
                ok = response.status == 200
                note = f"{response.status} {text[:200]!r}"
                if response.getheader("Connection", "").lower() == "close":
                    connection.close()
            except (http.client.HTTPException, OSError) as error:
                note = f"{type(error).__name__}: {error}"
                connection.close()
            done = time.monotonic()
            answered[(g, k)].set()
            with lock:
                results.append((due, sent, done, ok))
                if not ok:
                    failures.append(f"{path}: {note}")

    threads = [threading.Thread(target=sender, daemon=True) for _ in range(connections)]
    for thread in threads:
        thread.start()
    began = time.monotonic()
    for index, (g, k) in enumerate(schedule):
        due = began + index / rate
        pause = due - time.monotonic()
        if pause > 0:
            time.sleep(pause)
        waiting.put((due, g, k))
    for _ in threads:
        waiting.put(None)
    limit = time.monotonic() + drain
    for thread in threads:
        thread.join(max(0.0, limit - time.monotonic()))
    with lock:
        counted = list(results)
        failed = list(failures)
    latencies = [done - due for due, _, done, ok in counted if ok]
    finished = max((done for _, _, done, _ in counted), default=began)
    if failed:
        print(f"{len(failed)} failed requests, e.g. {failed[:3]}")
    return {
        "scheduled": len(schedule),
        "requests": len(counted),
        "rate": sum(ok for *_, ok in counted) / max(finished - began, 1e-9),
        "p50": harness.percentile(latencies, 0.5) * 1000,
        "p99": harness.percentile(latencies, 0.99) * 1000,
        "late": sum(1 for due, sent, _, _ in counted if sent - due > late_after),
        "failures": sum(1 for *_, ok in counted if not ok),
        "unsent": len(schedule) - len(counted),
    }


def _run(port: int, plan: Plan, seconds: float) -> list[int]:
    """A load run whose figures do not count; how many requests each client made."""
    return load(port, plan, seconds)["done"]


def playouts(game_ids: Sequence[int], moves: int, seed: int = 1) -> list[list[tuple[int, str]]]:
    """A random legal line of ``moves`` (seat, text) per game, from its start position."""
    from engine import new_game

    rng = random.Random(seed)
    rules = new_game("epaminondas")
    lines = []
    for _ in game_ids:
        state, line = rules.initial_state(), []
        for _ in range(moves):
            if state.is_over:
                break
            seat = state.to_act[0]
            action = state.random_action(seat, rng)
            line.append((seat, state.format(action)))
            state = state.play(seat, action).state
        lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--games", type=int, default=200, help="alternating games in play")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--moves", type=int, default=60, help="moves prepared per game")
    parser.add_argument("--warmup", type=float, default=10, help="seconds not counted")
    parser.add_argument(
        "--rate", type=float, default=0, help="open loop: moves sent per second (0: closed loop)"
    )
    parser.add_argument(
        "--late-ms", type=float, default=10, help="open loop: a move sent later than this is late"
    )
    args = parser.parse_args()

    with harness.service_env() as env, harness.processes() as running:
        began = time.monotonic()
        players = harness.add_players(2 * args.games, notify="none")
        tokens = {pid: harness.token_for(pid) for pid in players}
        game_ids = [
            harness.new_game("epaminondas", (players[2 * i], players[2 * i + 1]))
            for i in range(args.games)
        ]
        harness.set_notify(players, "each")
        lines = playouts(game_ids, args.moves)
        per_game = [
            [
                (
                    f"/api/v1/games/{gid}/moves",
                    tokens[players[2 * i + seat]],
                    {"turn": turn, "text": text},
                )
                for turn, (seat, text) in enumerate(line, 1)
            ]
            for i, (gid, line) in enumerate(zip(game_ids, lines, strict=True))
        ]
        plan, keys = [], []  # keys: which (game, move) each request of a client is
        for c in range(args.clients):
            mine = range(c, len(per_game), args.clients)
            depth = max((len(per_game[g]) for g in mine), default=0)
            keys.append([(g, k) for k in range(depth) for g in mine if k < len(per_game[g])])
            plan.append([per_game[g][k] for g, k in keys[-1]])
        print(f"set up {args.games} games in {time.monotonic() - began:.1f} s")

        port = harness.free_port()
        argv = web_argv(port)
        # Procfile's command binds where PORT / PBEM_WEB_BIND say: loopback, this run's port
        running.start(argv, {**env, "PORT": str(port), "PBEM_WEB_BIND": f"127.0.0.1:{port}"})
        wait_http(port, "/api/v1/games/0/moves")
        if args.rate:
            # warm up closed-loop (every server process loading and compiling), then go on
            # from each game's first move not played yet
            done = _run(port, plan, args.warmup) if args.warmup else [0] * len(plan)
            played = [0] * len(per_game)
            for client_keys, count in zip(keys, done, strict=True):
                for g, k in client_keys[:count]:
                    played[g] = max(played[g], k + 1)
            rest = [moves[played[g] :] for g, moves in enumerate(per_game)]
            figures = open_loop(
                port, rest, args.rate, args.seconds, args.clients, args.late_ms / 1000
            )
            running.stop()
            _print_open_loop(args, argv, figures)
            return
        figures = load(port, plan, args.seconds, args.warmup)
        running.stop()

    from bench import bare_web

    bare = bare_web.measure(args.clients, args.seconds)
    harness.print_table(
        f"move API: {args.clients} clients, {args.games} Epaminondas games, "
        f"web = {' '.join(argv[2:5])}...",
        [
            ("moves", f"{figures['requests']:.0f} ({figures['failures']:.0f} failed)"),
            ("rate", f"{figures['rate']:.1f} moves/s"),
            ("latency", f"p50 {figures['p50']:.1f} ms, p99 {figures['p99']:.1f} ms"),
            (
                "ceiling",
                f"bare Flask+gunicorn JSON route {bare['rate']:.0f} req/s, "
                f"p50 {bare['p50']:.1f} ms, p99 {bare['p99']:.1f} ms",
            ),
            ("ratio", f"moves/s / bare req/s = {figures['rate'] / bare['rate']:.3f}"),
            ("machine", harness.load_note()),
        ],
    )


def _print_open_loop(args: argparse.Namespace, argv: Sequence[str], figures: dict[str, float]):
    harness.print_table(
        f"move API, open loop: {args.rate:g} moves/s offered over {args.clients} connections, "
        f"{args.games} Epaminondas games, web = {' '.join(argv[2:5])}...",
        [
            (
                "moves",
                f"{figures['scheduled']:.0f} scheduled, {figures['requests']:.0f} answered "
                f"({figures['failures']:.0f} failed, {figures['unsent']:.0f} never answered)",
            ),
            ("rate", f"{figures['rate']:.1f} moves/s answered 200 (offered {args.rate:g})"),
            (
                "latency",
                f"from the scheduled time: p50 {figures['p50']:.1f} ms, "
                f"p99 {figures['p99']:.1f} ms",
            ),
            ("late", f"{figures['late']:.0f} sent more than {args.late_ms:g} ms after their time"),
            ("machine", harness.load_note()),
        ],
    )


if __name__ == "__main__":
    main()
