"""Inbound mail: players' replies delivered over SMTP to the listener (``pbem mail smtpd``, as
``Procfile``'s ``smtp`` runs it), read by a real worker process (concurrency 2), each one a
legal move in its own Epaminondas game.

Run from the project root (PostgreSQL and Redis as on CI, fresh schema and queue)::

    python3 bench/inbound.py --replies 1000

Each reply answers the game's signed Reply-To from the player's own address with the move
above the reply marker, sent by ``--connections`` SMTP clients, each one session. The replies
carry no DKIM signature, so the listener runs with ``PBEM_SMTPD_CHECK_SENDERS=0`` (as behind
a mail server that checks senders); a run whose replies are refused stops and says so. Printed: the
time from the first message sent until every move is applied (its order stored and its
notifications queued: one transaction), replies/s, p50/p99 of (move applied - message
accepted); then the same clients against a bare aiosmtpd server (``bench/bare_smtpd.py``),
measured in the same run, and the ratio.
"""

from __future__ import annotations

import argparse
import smtplib
import sys
import threading
import time
from collections.abc import Sequence
from email.message import EmailMessage
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import harness

MARKER = "## Reply ABOVE this line ##"
UNPLAYED = ("rejected", "failed", "ignored")


def deliver(port: int, messages: Sequence[tuple[str, str, bytes]], connections: int) -> list[float]:
    """Send every (from, to, raw) over ``connections`` SMTP sessions; accept times (monotonic)."""
    accepted: list[float] = [0.0] * len(messages)
    gate = threading.Barrier(connections)

    def client(index: int) -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=120) as smtp:
            gate.wait()
            for k in range(index, len(messages), connections):
                sender, to, raw = messages[k]
                smtp.sendmail(sender, [to], raw)
                accepted[k] = time.monotonic()

    threads = [threading.Thread(target=client, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return accepted


def reply(sender: str, to: str, text: str, number: int) -> bytes:
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = to
    mail["Subject"] = "Re: your move"
    mail["Message-ID"] = f"<bench-{number}@example.org>"
    mail.set_content(f"{text}\n\n{MARKER}\n> the board was here\n")
    return bytes(mail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replies", type=int, default=1000, help="games, one reply each")
    parser.add_argument("--connections", type=int, default=4, help="SMTP client sessions")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--limit", type=float, default=1800)
    args = parser.parse_args()
    smtpd_port = harness.free_port()

    with (
        harness.service_env(PBEM_SMTPD_PORT=str(smtpd_port), PBEM_SMTPD_CHECK_SENDERS="0") as env,
        harness.processes() as running,
    ):
        from sqlalchemy import func, select

        from engine import new_game
        from service import db
        from service.config import Settings
        from service.mail.addresses import make_reply_address
        from service.mail.models import InboundMessage
        from service.models import Email, Order

        began = time.monotonic()
        n = args.replies
        players = harness.add_players(2 * n, notify="none")
        template = harness.new_game("epaminondas", (players[0], players[1]))
        game_ids = [
            template,
            *harness.clone_games(
                template, [(players[2 * i], players[2 * i + 1]) for i in range(1, n)]
            ),
        ]
        harness.set_notify(players, "each")
        settings = Settings.from_env()
        state = new_game("epaminondas").initial_state()
        seat = state.to_act[0]
        move = state.examples(seat, 1)[0]
        with db.current().transaction() as session:
            address = dict(session.execute(select(Email.player_id, Email.address)).all())
        messages = []
        for i, gid in enumerate(game_ids):
            pid = players[2 * i + seat]
            to = make_reply_address(settings.secret(), settings.mail_domain, gid, pid, 1)
            messages.append((address[pid], to, reply(address[pid], to, move, i)))
        print(f"set up {n} games in {time.monotonic() - began:.1f} s ({harness.load_note()})")

        running.start(
            [sys.executable, "-c", "from service.cli import main; main(['mail', 'smtpd'])"],
            env,
            ready="pbem: SMTP",
        )
        running.start(
            harness.worker_argv(concurrency=args.concurrency, name="inbound"),
            env,
            ready=harness.WORKER_READY,
        )

        def applied() -> int:
            with db.current().transaction() as session:
                query = select(func.count()).select_from(Order).where(Order.status == "played")
                return int(session.scalar(query) or 0)

        def all_applied() -> bool:
            if applied() >= n:
                return True
            with db.current().transaction() as session:
                query = select(func.count()).where(InboundMessage.status.in_(UNPLAYED))
                refused = int(session.scalar(query) or 0)
            if refused:
                raise SystemExit(f"{refused} replies were not played (rejected or failed)")
            return False

        started = time.monotonic()
        deliver(smtpd_port, messages, args.connections)
        sent = time.monotonic()
        done = harness.wait_until(all_applied, args.limit, "every move applied", 0.05)
        with db.current().transaction() as session:
            statuses = dict(
                session.execute(
                    select(InboundMessage.status, func.count()).group_by(InboundMessage.status)
                ).all()
            )
            processed = session.execute(
                select(InboundMessage.processed_at, InboundMessage.received_at)
            ).all()
        lag = [(p - r).total_seconds() for p, r in processed if p is not None]
        running.stop()

        bare_port = harness.free_port()
        running.start([sys.executable, "bench/bare_smtpd.py", str(bare_port)], env, "listening")
        bare_began = time.monotonic()
        deliver(bare_port, messages, args.connections)
        bare_rate = n / (time.monotonic() - bare_began)

    rate = n / (done - started)
    harness.print_table(
        f"inbound: {n} replies over SMTP, {args.connections} client sessions, "
        f"1 worker x {args.concurrency}",
        [
            ("all accepted", f"{sent - started:.1f} s ({n / (sent - started):.1f} accepted/s)"),
            ("all applied", f"{done - started:.1f} s  ({rate:.1f} replies/s end to end)"),
            (
                "received->processed",
                f"p50 {harness.median(lag):.2f} s, p99 {harness.percentile(lag, 0.99):.2f} s",
            ),
            ("statuses", ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))),
            ("ceiling", f"bare aiosmtpd {bare_rate:.0f} accepted/s (same clients)"),
            ("ratio", f"replies/s / bare accepted/s = {rate / bare_rate:.3f}"),
            ("machine", harness.load_note()),
        ],
    )


if __name__ == "__main__":
    main()
