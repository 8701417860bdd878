"""Where the time of one resolution, one send and one move goes: in process, on PostgreSQL
(a fresh schema, as the benchmarks), no worker (queued tasks are dropped).

    python3 bench/profile_stages.py --games 200 [--top 15] [--sort cumulative]

For each stage it prints the time per item, the SQL statements per item (counted by a
SQLAlchemy ``before_cursor_execute`` listener) and cProfile's top functions by own time.
Stages: ``resolve`` (sealed turns past their deadline, Elasta and Nelaxtam, as the storm),
``send`` (the resulting mails, over SMTP to a bare aiosmtpd in this process), ``move`` (one
Epaminondas move through the API's service call, as the move benchmark).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness


class StatementCounter:
    def __init__(self, engine: Any) -> None:
        from sqlalchemy import event

        self.count = 0
        event.listen(engine, "before_cursor_execute", self._seen)

    def _seen(self, *args: Any) -> None:
        self.count += 1


@contextmanager
def stage(
    name: str, items: int, counter: StatementCounter, top: int, sort: str = "tottime"
) -> Iterator[None]:
    profile = cProfile.Profile()
    before = counter.count
    began = time.perf_counter()
    profile.enable()
    yield
    profile.disable()
    elapsed = time.perf_counter() - began
    statements = counter.count - before
    print(
        f"\n== {name}: {items} items, {elapsed / items * 1000:.1f} ms and "
        f"{statements / items:.1f} SQL statements each =="
    )
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats(sort).print_stats(top)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("\n".join(lines[start : start + top + 1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--sort", default="tottime", help="pstats key, e.g. cumulative")
    args = parser.parse_args()
    port = harness.free_port()
    extra = {"PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(port), "PBEM_SMTP_STARTTLS": "0"}
    with harness.service_env(**extra):
        from aiosmtpd.controller import Controller
        from sqlalchemy import select

        from bench.bare_smtpd import Accept
        from service import db, games, schedule
        from service.models import Outbox, Player, Turn

        queued: list[tuple[str, tuple[Any, ...]]] = []
        database = db.configure(db.current().settings, lambda name, a: queued.append((name, a)))
        counter = StatementCounter(database.engine)
        n = args.games
        players = harness.add_players(2 * n, notify="none")
        pairs = [(players[2 * i], players[2 * i + 1]) for i in range(n)]
        ids: list[int] = []
        for index, kind in enumerate(("elasta", "nelaxtam")):
            share = pairs[index::2]
            template = harness.new_game(kind, share[0])
            ids += [template, *harness.clone_games(template, share[1:])]
        harness.set_notify(players, "each")
        with database.transaction() as session:
            session.query(Turn).update({Turn.deadline: schedule.utcnow()})

        with stage(
            "resolve (one sealed turn, its two mails queued)", n, counter, args.top, args.sort
        ):
            for gid in ids:
                schedule.resolve_turn(database, gid, 1)
        with database.transaction() as session:
            outbox = list(session.scalars(select(Outbox.id)))
        smtpd = Controller(Accept(), hostname="127.0.0.1", port=port)
        smtpd.start()
        try:
            run_sends(database, outbox, counter, args.top, args.sort)
        finally:
            smtpd.stop()

        moves = min(n, 100)
        lines = []
        for i in range(moves):
            lines.append(harness.new_game("epaminondas", pairs[i]))
        from bench.move_api import playouts

        first = playouts(lines, 1)
        with stage(
            "move (API service call: submit + to_json)", moves, counter, args.top, args.sort
        ):
            for gid, line in zip(lines, first, strict=True):
                seat, text = line[0]
                with database.transaction() as session:
                    game = games.get(session, gid)
                    player = session.get_one(Player, game.seats[seat].player_id)
                    game = games.submit(session, gid, player, 1, text)
                    games.to_json(session, game, player)


def run_sends(
    database: Any, outbox: list[int], counter: StatementCounter, top: int, sort: str
) -> None:
    from service import schedule

    send: Callable[..., Any] = getattr(schedule, "send_batch", None) or (
        lambda d, ids: [schedule.send(d, i) for i in ids]
    )
    with stage("send (one mail over SMTP)", len(outbox), counter, top, sort):
        send(database, outbox)


if __name__ == "__main__":
    main()
