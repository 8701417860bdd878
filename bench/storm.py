"""Deadline storm: N sealed-turn games (Elasta and Nelaxtam, half each) fall due at once.

Run from the project root (starts PostgreSQL and Redis as CI does when they are down; a fresh
schema and queue; one real worker process of concurrency 2, the way the issue measured it;
mail goes over SMTP to a bare aiosmtpd sink on loopback)::

    python3 bench/storm.py --games 2000

It creates the games through the service once per game kind and copies them in bulk, moves
every deadline into the past, runs one sweep, and prints the time from the sweep until every
turn is resolved and until every resulting mail is sent, turns/s and mails/s, then checks that
no turn was resolved twice (each game has exactly its two orders applied and one next turn)
and none is left. The ceiling: no-op Celery tasks/s through the same kind of worker, measured
in the same run (``bench/bare_celery.py``); the ratio is turns/s over that.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness

KINDS = ("elasta", "nelaxtam")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=2000, help="N games in the storm")
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes' pool")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--ceiling-tasks", type=int, default=3000)
    parser.add_argument("--limit", type=float, default=1800, help="give up after (s)")
    args = parser.parse_args()

    smtp_port = harness.free_port()
    extra = {
        "PBEM_SMTP_HOST": "127.0.0.1",
        "PBEM_SMTP_PORT": str(smtp_port),
        "PBEM_SMTP_STARTTLS": "0",
    }
    with harness.service_env(**extra) as env, harness.processes() as running:
        from sqlalchemy import func, select

        from service import db, schedule
        from service.models import Game, Outbox, Step, Turn

        started = time.monotonic()
        n = args.games
        players = harness.add_players(2 * n, notify="none")
        pairs = [(players[2 * i], players[2 * i + 1]) for i in range(n)]
        game_ids: list[int] = []
        for index, kind in enumerate(KINDS):
            share = pairs[index::2]
            template = harness.new_game(kind, share[0])
            game_ids += [template, *harness.clone_games(template, share[1:])]
        harness.set_notify(players, "each")
        database = db.current()
        with database.transaction() as session:
            past = schedule.utcnow().replace(microsecond=0)
            session.query(Turn).filter(Turn.resolved_at.is_(None)).update(
                {Turn.deadline: past}, synchronize_session=False
            )
        print(f"set up {n} games in {time.monotonic() - started:.1f} s ({harness.load_note()})")

        running.start([sys.executable, "bench/bare_smtpd.py", str(smtp_port)], env, "listening")
        for index in range(args.workers):
            argv = harness.worker_argv(concurrency=args.concurrency, name=f"storm{index}")
            running.start(argv, env, ready=harness.WORKER_READY)

        def resolved() -> int:
            with database.transaction() as session:
                query = select(func.count()).select_from(Turn).where(Turn.resolved_at.isnot(None))
                return int(session.scalar(query) or 0)

        def unsent() -> tuple[int, int]:
            with database.transaction() as session:
                total = session.scalar(select(func.count()).select_from(Outbox)) or 0
                left = session.scalar(
                    select(func.count()).select_from(Outbox).where(Outbox.sent_at.is_(None))
                )
                return int(total), int(left or 0)

        began = time.monotonic()
        swept = schedule.sweep(database)
        swept_at = time.monotonic()
        done_at = harness.wait_until(lambda: resolved() >= n, args.limit, "every turn resolved")
        expected = 2 * n

        def all_sent() -> bool:
            total, left = unsent()
            return total >= expected and left == 0

        sent_at = harness.wait_until(all_sent, args.limit, "every mail sent")
        total, _ = unsent()

        with database.transaction() as session:
            steps = dict(
                session.execute(
                    select(Step.game_id, func.count())
                    .where(Step.kind == "move")
                    .group_by(Step.game_id)
                ).all()
            )
            turns = dict(
                session.execute(select(Turn.game_id, func.count()).group_by(Turn.game_id)).all()
            )
            at_turn_two = session.scalar(
                select(func.count()).select_from(Game).where(Game.turn == 2)
            )
        twice = [g for g in game_ids if steps.get(g, 0) > 2 or turns.get(g, 0) > 2]
        left = [g for g in game_ids if steps.get(g, 0) < 2 or turns.get(g, 0) < 2]

        ceiling = _ceiling(args)
        resolve_s = done_at - began
        mail_s = sent_at - began
        turns_rate = n / resolve_s
        harness.print_table(
            f"deadline storm: {n} games ({', '.join(KINDS)}), {args.workers} worker(s) x "
            f"{args.concurrency}",
            [
                ("sweep found", f"{swept['turns']} due turns in {swept_at - began:.2f} s"),
                ("all resolved", f"{resolve_s:.1f} s  ({turns_rate:.1f} turns/s)"),
                ("all mail sent", f"{mail_s:.1f} s  ({total} mails, {total / mail_s:.1f} mails/s)"),
                ("resolved twice", str(len(twice))),
                ("left unresolved", str(len(left))),
                ("games at turn 2", str(at_turn_two)),
                ("ceiling", f"{ceiling:.0f} no-op Celery tasks/s (same worker options)"),
                ("ratio", f"turns/s / no-op tasks/s = {turns_rate / ceiling:.3f}"),
                ("machine", harness.load_note()),
            ],
        )
        if twice or left or total != expected:
            raise SystemExit(f"FAILED: {len(twice)} twice, {len(left)} left, {total} mails")


def _ceiling(args: argparse.Namespace) -> float:
    from bench import bare_celery

    return bare_celery.measure(args.ceiling_tasks, args.concurrency)


if __name__ == "__main__":
    main()
