"""Where the time of one inbound reply goes, in process, on PostgreSQL (a fresh schema, as the
benchmarks), no worker (queued tasks are dropped): the same replies as ``bench/inbound.py``
(one legal Epaminondas move per game, unsigned, ``PBEM_SMTPD_CHECK_SENDERS=0``).

    python3 bench/profile_inbound.py --replies 200 [--top 25] [--sort tottime]

Two stages, each with its time and SQL statements per reply and cProfile's top functions:
``receive`` (what the SMTP listener does before it answers 250: ``gateway.receive``) and
``process`` (what the worker does: ``gateway.process``). For ``process`` it also prints the
cumulative time per reply of its parts (extraction, sender authentication, reading, the
games and notify calls), from the same profile.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness
from bench.inbound import reply
from bench.profile_stages import StatementCounter

PARTS = (
    ("gateway.py", "process"),
    ("gateway.py", "_count_attempt"),
    ("gateway.py", "_work"),
    ("extract.py", "extract_reply"),
    ("storable.py", "clean_reply"),
    ("gateway.py", "run"),
    ("gateway.py", "_token"),
    ("gateway.py", "doctor_token"),
    ("authentication.py", "for_player"),
    ("gateway.py", "_commands"),
    ("commands.py", "take_conditionals"),
    ("__init__.py", "action_reader"),
    ("games.py", "action_reader"),
    ("reading.py", "read_reply"),
    ("__init__.py", "submit"),
    ("games.py", "submit"),
    ("gateway.py", "_answer"),
    ("notify.py", "release"),
    ("gateway.py", "_confirm"),
    ("session.py", "commit"),
)


def parts(profile: cProfile.Profile, items: int) -> None:
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    print("\n-- parts of process: cumulative ms per reply (calls per reply) --")
    for filename, name in PARTS:
        for (path, _line, function), (_cc, calls, _tt, cumulative, _callers) in stats.items():
            ours = "/service/" in path or name == "commit"
            if function != name or not path.endswith(filename) or not ours:
                continue
            where = path.split("/service/")[-1] if "/service/" in path else filename
            per_reply = cumulative / items * 1000
            print(f"{per_reply:8.2f} ms  {calls / items:5.1f}x  {where}:{function}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replies", type=int, default=200)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sort", default="tottime", help="pstats key, e.g. cumulative")
    parser.add_argument("--dump", help="write the process stage's profile to this file")
    parser.add_argument("--sql", action="store_true", help="print the SQL of the last reply")
    args = parser.parse_args()
    with harness.service_env(PBEM_SMTPD_CHECK_SENDERS="0"):
        from sqlalchemy import select

        from engine import new_game
        from service import db
        from service.config import Settings
        from service.mail import gateway
        from service.mail.addresses import make_reply_address
        from service.models import Email

        queued: list[object] = []
        database = db.configure(db.current().settings, lambda name, a: queued.append((name, a)))
        counter = StatementCounter(database.engine)
        n = args.replies
        players = harness.add_players(2 * n, notify="none")
        template = harness.new_game("epaminondas", (players[0], players[1]))
        pairs = [(players[2 * i], players[2 * i + 1]) for i in range(1, n)]
        game_ids = [template, *harness.clone_games(template, pairs)]
        harness.set_notify(players, "each")
        settings = Settings.from_env()
        state = new_game("epaminondas").initial_state()
        seat = state.to_act[0]
        move = state.examples(seat, 1)[0]
        with database.transaction() as session:
            address = dict(session.execute(select(Email.player_id, Email.address)).all())
        messages = []
        for i, gid in enumerate(game_ids):
            pid = players[2 * i + seat]
            to = make_reply_address(settings.secret(), settings.mail_domain, gid, pid, 1)
            messages.append((address[pid], to, reply(address[pid], to, move, i)))
        print(f"set up {n} games ({harness.load_note()})")

        ids: list[int] = []
        profile = cProfile.Profile()
        before, began = counter.count, time.perf_counter()
        profile.enable()
        for sender, to, raw in messages:
            ids.append(gateway.receive(database, raw, "smtp", [to], sender).id)
        profile.disable()
        report(
            "receive (SMTP listener, before its 250)",
            profile,
            n,
            counter.count - before,
            time.perf_counter() - began,
            args,
        )

        profile = cProfile.Profile()
        before, began = counter.count, time.perf_counter()
        profile.enable()
        statuses = [gateway.process(database, inbound_id) for inbound_id in ids[:-1]]
        seen: list[str] = []
        if args.sql:
            from sqlalchemy import event

            def log(_c, _cur, statement, *_rest) -> None:  # type: ignore[no-untyped-def]
                seen.append(" ".join(statement.split())[:160])

            event.listen(database.engine, "before_cursor_execute", log)
        statuses.append(gateway.process(database, ids[-1]))
        profile.disable()
        report(
            "process (worker: the reply read and played)",
            profile,
            n,
            counter.count - before,
            time.perf_counter() - began,
            args,
        )
        parts(profile, n)
        if args.dump:
            profile.dump_stats(args.dump)
        for number, statement in enumerate(seen, 1):
            print(f"{number:3} {statement}")
        print(f"\nstatuses: { {s: statuses.count(s) for s in set(statuses)} }")
        print(f"machine: {harness.load_note()}")


def report(
    name: str, profile: cProfile.Profile, items: int, statements: int, elapsed: float, args
) -> None:
    print(
        f"\n== {name}: {items} replies, {elapsed / items * 1000:.2f} ms and "
        f"{statements / items:.1f} SQL statements each =="
    )
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats(args.sort).print_stats(args.top)
    lines = out.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    print("\n".join(lines[start : start + args.top + 1]))


if __name__ == "__main__":
    main()
