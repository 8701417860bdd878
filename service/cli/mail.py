"""``pbem mail ...``: the inbound gateway from the command line; mail as the gateway reads it."""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
from pathlib import Path
from typing import IO, Any

import click

from service import db, games, migrate
from service.config import Settings
from service.db import Database
from service.mail import demo, gateway
from service.mail.extract import extract_reply, extract_text

EX_DATAERR = 65  # sysexits.h: the input was wrong; an MTA pipe bounces the message
EX_TEMPFAIL = 75  # sysexits.h: try again later; an MTA pipe keeps the message

# A raw message opens with header fields; a bare body (a .txt of what was typed) does not.
_HEADER_FIELD = re.compile(rb"^[A-Za-z0-9-]+:[ \t]", re.M)
_KNOWN_FIELDS = re.compile(
    rb"^(?:from|to|subject|date|message-id|received|return-path|mime-version|content-type):",
    re.I | re.M,
)


def looks_like_message(raw: bytes) -> bool:
    """Whether ``raw`` starts with an RFC 5322 header block naming a usual field."""
    head = raw.lstrip().replace(b"\r\n", b"\n").split(b"\n\n", 1)[0]
    return bool(_HEADER_FIELD.match(head) and _KNOWN_FIELDS.search(head))


@click.group("mail")
def mail_group() -> None:
    """Inbound mail."""


@mail_group.command("extract")
@click.argument("source", metavar="FILE", type=click.File("rb"))
@click.option("--html", is_flag=True, help="FILE is an HTML body, not a message.")
def extract_command(source: IO[bytes], html: bool) -> None:
    """Print the reply typed in FILE (a raw .eml message or a bare body; - for stdin).

    For a message, the facts the gateway routes on come first, then a blank line and the
    typed text. Exit status 1 when nothing typed was found, with the reason on stderr.
    """
    raw = source.read()
    if html or not looks_like_message(raw):
        text = extract_text(raw.decode("utf-8", errors="replace"), html=html)
        problem = "" if text else "nothing typed above the quoted text"
    else:
        reply = extract_reply(raw)
        facts = {
            "From": reply.sender,
            "Subject": reply.subject,
            "Message-ID": reply.message_id,
            "In-Reply-To": reply.in_reply_to,
            "Automated": reply.automated,
        }
        for name, value in facts.items():
            if value:
                click.echo(f"{name}: {value}")
        click.echo()
        text, problem = reply.text, reply.problem
    if text:
        click.echo(text)
    if problem:
        click.echo(f"no reply: {problem}", err=True)
        sys.exit(1)


def _database() -> Database:
    database = db.configure(Settings.from_env())
    migrate.upgrade(database)
    return database


@mail_group.command("inject")
@click.argument("source", metavar="[FILE|-]", type=click.File("rb"), default="-")
@click.option("--to", "recipients", multiple=True, help="Envelope recipient (repeatable).")
def inject_command(source: IO[bytes], recipients: tuple[str, ...]) -> None:
    """Store one raw message (FILE, or stdin) for the gateway, as an MTA pipe would.

    For Postfix: ``pbem unix - n n - - pipe flags=R user=pbem argv=pbem mail inject --to
    ${recipient}``. Exit status 0 once stored (a message stored before is not stored again),
    65 (EX_DATAERR, the MTA bounces it; the message starts with the status 5.3.4) when it is
    over PBEM_INBOUND_MAX_BYTES, as SMTP's 552, and (status 5.6.0) when its header lines could
    be split two ways (a bare CR, VT, FF, ...), as SMTP's 550; 75 (EX_TEMPFAIL, the MTA
    retries) when the database cannot take it.
    """
    raw = source.read()
    settings = Settings.from_env()
    try:
        gateway.check_size(settings, raw)
    except gateway.TooLarge as error:
        click.echo(f"5.3.4 refused: {error.message}; nothing was stored", err=True)
        sys.exit(EX_DATAERR)
    try:
        gateway.check_header_block(raw)
    except gateway.AmbiguousHeaders as error:
        click.echo(f"5.6.0 {error.message}; nothing was stored", err=True)
        sys.exit(EX_DATAERR)
    try:
        received = gateway.receive(_database(), raw, "inject", recipients)
    except Exception as error:  # the MTA keeps the message and tries again
        click.echo(f"error: cannot store the message now: {error}", err=True)
        sys.exit(EX_TEMPFAIL)
    again = " (already stored before: nothing to do)" if received.duplicate else ""
    click.echo(f"stored as inbound #{received.id}{again}")


@mail_group.command("smtpd")
@click.option("--host", default=None, help="Address to listen on [PBEM_SMTPD_HOST].")
@click.option("--port", type=int, default=None, help="Port to listen on [PBEM_SMTPD_PORT].")
def smtpd_command(host: str | None, port: int | None) -> None:
    """Run the SMTP listener for PBEM_MAIL_DOMAIN until Ctrl-C (or SIGTERM)."""
    from service.mail.smtpd import Listener

    database = _database()
    settings = database.settings
    listener = Listener(
        database,
        host if host is not None else settings.smtpd_host,
        port if port is not None else settings.smtpd_port,
    )
    stop = threading.Event()
    for number in (signal.SIGINT, signal.SIGTERM):  # before start: a Ctrl-C while starting
        signal.signal(number, lambda *_: stop.set())  # must not leave the server thread alive
    listener.start()
    try:
        click.echo(
            f"pbem: SMTP for @{settings.mail_domain} on {listener.hostname}:{listener.port} "
            f"(at most {settings.inbound_max_bytes} bytes a message)"
        )
        stop.wait()
    finally:
        listener.stop()


@mail_group.command("status")
@click.option("--last", default=20, show_default=True, help="How many messages to list.")
def status_command(last: int) -> None:
    """The latest inbound messages: id, channel, status, sender and what came of each; then
    every failed message that is older (they wait for someone to look at them)."""
    from sqlalchemy import select

    from service.mail.models import FAILED, InboundMessage

    with _database().transaction() as session:
        rows = session.scalars(
            select(InboundMessage).order_by(InboundMessage.id.desc()).limit(last)
        ).all()
        for row in reversed(rows):
            _echo_inbound(row)
        older = select(InboundMessage).where(InboundMessage.status == FAILED)
        if rows:
            older = older.where(InboundMessage.id < rows[-1].id)
        failed = session.scalars(older.order_by(InboundMessage.id)).all()
        if failed:
            click.echo(f"older failed messages: {len(failed)}")
        for row in failed:
            _echo_inbound(row)


def _echo_inbound(row: Any) -> None:
    tries = f" after {row.attempts} attempts" if row.status == "failed" else ""
    click.echo(f"#{row.id} {row.channel} {row.status}{tries} from {row.sender or '?'}")
    for line in (row.result or "").splitlines():
        click.echo(f"    {line}")


@mail_group.command("reply")
@click.option("--as", "sender", required=True, help="The player's e-mail address.")
@click.option("--game", "game_id", type=int, required=True, help="The game's number.")
@click.argument("text")
def reply_command(sender: str, game_id: int, text: str) -> None:
    """Reply as a player to their latest mail of a game, as a mail client would, and inject it.

    TEXT is what the player types (use \\n or several lines for several commands).
    """
    database = _database()
    with database.transaction() as session:
        raw = demo.reply_to_latest(session, sender, game_id, text.replace("\\n", "\n"))
    if raw is None:
        click.echo(f"error: no mail to {sender} about game {game_id} yet", err=True)
        sys.exit(2)
    try:
        received = gateway.receive(database, raw, "inject")
    except gateway.TooLarge as error:
        click.echo(f"error: {error.message}", err=True)
        sys.exit(2)
    click.echo(f"sent as {sender}: stored as inbound #{received.id}")


@click.command("demo")
@click.option("--game", "game_name", default=demo.DEMO_GAME, show_default=True)
def demo_command(game_name: str) -> None:
    """Create Alice, Bob and a game between them; print how to play it by mail."""
    database = _database()
    with database.transaction() as session:
        game, seated = demo.create_demo(session, game_name)
        state = games.state_of(game)
        names = state.game.seat_names
        lines = [f"Game {game.id}: {state.game.title}, {seated[0].name} against {seated[1].name}."]
        for seat, player in enumerate(seated):
            move = demo.first_move(state, seat)
            lines += [
                "",
                f"{player.name} plays {names[seat]}. To reply to {player.name}'s latest mail:",
                f'  pbem mail reply --as {player.address} --game {game.id} "{move}"',
            ]
        first = names[state.to_act[0]] if state.to_act and not state.simultaneous else ""
        lines += [
            "",
            f"{first} moves first." if first else "Both send orders each turn.",
            "The mails are in " + str(database.settings.mail_dir) + " (with pbem run going);",
            "'pbem mail status' shows what the gateway did with each reply.",
        ]
    click.echo("\n".join(lines))


@mail_group.command("dns-check")
@click.option(
    "--new-key",
    type=click.Path(dir_okay=False, exists=False),
    help="First write a new 2048-bit DKIM key here (then set PBEM_DKIM_KEY_FILE to it).",
)
def dns_check_command(new_key: str | None) -> None:
    """Print the SPF, DKIM and DMARC records to publish for PBEM_MAIL_FROM's domain, and
    check offline what can be: the key, the alignment, a signed sample against the record.
    Exit 1 if a check fails."""
    from service.mail import dkim

    settings = Settings.from_env()
    env = None
    if new_key:
        dkim.new_key(Path(new_key))
        click.echo(f"wrote a new DKIM key to {new_key}; set PBEM_DKIM_KEY_FILE={new_key}")
        env = {**os.environ, "PBEM_DKIM_KEY_FILE": new_key}
    try:
        key = dkim.configured(settings, env)
    except dkim.DkimError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    click.echo("Publish these TXT records:\n")
    for name, value, why in dkim.records(settings, key):
        click.echo(f"; {why}")
        strings = " ".join(f'"{value[i : i + 255]}"' for i in range(0, len(value), 255))
        click.echo(f"{name}. IN TXT {strings}\n")
    click.echo("Checks (offline):")
    results = dkim.check(settings, key)
    for passed, what in results:
        click.echo(f"  {'ok  ' if passed else 'FAIL'} {what}")
    sys.exit(0 if all(passed for passed, _ in results) else 1)
