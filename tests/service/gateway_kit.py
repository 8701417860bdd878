"""Helpers for the gateway tests: players and games, replies shaped like real mail clients,
and a look at what the gateway stored and answered."""

from __future__ import annotations

import base64
import email
import email.policy
from email.message import EmailMessage
from email.mime.application import MIMEApplication
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime, make_msgid
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import select

from service import games, notify, players
from service.db import Database
from service.mail.addresses import make_reply_address
from service.mail.models import InboundMessage
from service.models import Game, Outbox, Player, utcnow

SMTP_LINES = email.policy.compat32.clone(linesep="\r\n")
"""Mail clients end lines with CRLF on the wire."""

SHAPES = ("plain", "gmail", "outlook", "apple", "phone", "html", "latin1")


def make_game(
    database: Database, game: str = "countdown", options: dict[str, str] | None = None
) -> tuple[int, int, int]:
    """Alice and Bob (made if missing) and a new game between them: (game, alice, bob) ids."""
    with database.transaction() as session:
        seated = []
        for name in ("Alice", "Bob"):
            address = f"{name.lower()}@example.org"
            player = players.by_address(session, address)
            if player is None:
                player, _ = players.create(session, None, {"name": name, "emails": [address]})
            seated.append(player)
        data = {"game": game, "options": options or {}, "seats": [p.id for p in seated]}
        made = games.create(session, seated[0], data)
        return made.id, seated[0].id, seated[1].id


def reply_address(database: Database, game_id: int, player_id: int, turn: int) -> str:
    settings = database.settings
    return make_reply_address(settings.secret(), settings.mail_domain, game_id, player_id, turn)


def current_address(database: Database, game_id: int, player_id: int) -> str:
    with database.transaction() as session:
        turn = session.get_one(Game, game_id).turn
    return reply_address(database, game_id, player_id, turn)


def latest(database: Database, address: str, game_id: int | None = None) -> EmailMessage:
    """The latest mail written to ``address`` (about ``game_id``), parsed."""
    with database.transaction() as session:
        query = select(Outbox).where(Outbox.to_address == address)
        if game_id is not None:
            query = query.where(Outbox.game_id == game_id)
        row = session.scalar(query.order_by(Outbox.id.desc()).limit(1))
        assert row is not None, f"no mail to {address}"
        body = notify.rendered(session, row).body  # a worker may not have sent it yet
    parsed = email.message_from_string(body, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def mails(database: Database, address: str, kind: str | None = None) -> list[Outbox]:
    with database.transaction() as session:
        query = select(Outbox).where(Outbox.to_address == address)
        if kind is not None:
            query = query.where(Outbox.kind == kind)
        return [notify.rendered(session, row) for row in session.scalars(query.order_by(Outbox.id))]


def inbound(database: Database, inbound_id: int) -> InboundMessage:
    with database.transaction() as session:
        return session.get_one(InboundMessage, inbound_id)


def game_row(database: Database, game_id: int) -> dict[str, Any]:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        return {"turn": game.turn, "status": game.status, "state": game.state}


def text_of(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def player_id(database: Database, address: str) -> int:
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert isinstance(player, Player)
        return player.id


def reply(
    original: EmailMessage | None,
    sender: str,
    typed: str,
    *,
    to: str | None = None,
    shape: str = "plain",
    headers: dict[str, str] | None = None,
) -> bytes:
    """A reply to ``original`` as the client ``shape`` writes one (the original quoted)."""
    quoted = text_of(original) if original is not None else ""
    target = to or str(original["Reply-To"] if original is not None else "")
    subject = "Re: " + str(original["Subject"] if original is not None else "game")
    if shape == "gmail":
        body = f"{typed}\n\nOn Mon, 3 Mar 2025 at 10:00, pbem <pbem@localhost> wrote:\n" + _q(
            quoted
        )
        html = (
            f'<div dir="ltr">{typed.replace(chr(10), "<br>")}</div><br><div class="gmail_quote">'
            f'<div class="gmail_attr">On Mon, 3 Mar 2025, pbem wrote:<br></div>'
            f'<blockquote class="gmail_quote">{_html(quoted)}</blockquote></div>'
        )
        mail: Any = MIMEMultipart("alternative")
        mail.attach(MIMEText(body, "plain", "utf-8"))
        mail.attach(MIMEText(html, "html", "utf-8"))
    elif shape == "outlook":
        body = (
            f"{typed}\r\n\r\n________________________________\r\nFrom: pbem <pbem@localhost>\r\n"
            f"Sent: Monday, March 3, 2025 10:00 AM\r\nTo: {sender}\r\nSubject: {subject[4:]}\r\n"
            f"\r\n{quoted}"
        )
        html = (
            f'<html><body><div class="WordSection1"><p class="MsoNormal">{typed}</p></div>'
            f'<hr style="display:inline-block;width:98%"><div id="divRplyFwdMsg">'
            f"<b>From:</b> pbem</div>{_html(quoted)}</body></html>"
        )
        mail = MIMEMultipart("alternative")
        mail.attach(MIMEText(body, "plain", "utf-8"))
        mail.attach(MIMEText(html, "html", "utf-8"))
    elif shape == "apple":
        body = f"{typed}\n\n> On 3 Mar 2025, at 10:00, pbem <pbem@localhost> wrote:\n>\n" + _q(
            quoted
        )
        mail = MIMEText(body, "plain", "utf-8")
        mail.set_param("format", "flowed")
    elif shape == "phone":
        body = f"{typed}\n\nSent from my iPhone\n\nOn 3 Mar 2025, pbem wrote:\n" + _q(quoted)
        mail = MIMEText(body, "plain", "utf-8")
    elif shape == "html":
        html = (
            f"<html><body><p>{typed.replace(chr(10), '<br>')}</p>"
            f"<blockquote>{_html(quoted)}</blockquote></body></html>"
        )
        mail = MIMEText(html, "html", "utf-8")
    elif shape == "latin1":
        body = f"{typed}\n\nViele Grüße\nJörg\n\nAm 03.03.2025 um 10:00 schrieb pbem:\n" + _q(
            quoted
        )
        mail = MIMEText(body, "plain", "iso-8859-1")
    else:
        body = f"{typed}\n\nOn Mon, 3 Mar 2025, pbem wrote:\n" + _q(quoted)
        mail = MIMEText(body, "plain", "utf-8")
    mail["From"] = sender
    mail["To"] = target
    mail["Subject"] = subject
    mail["Date"] = format_datetime(utcnow())
    mail["Message-ID"] = make_msgid(domain="example.org")
    if original is not None and original["Message-ID"]:
        mail["In-Reply-To"] = original["Message-ID"]
    for name, value in (headers or {}).items():
        mail[name] = value
    return bytes(mail.as_bytes(policy=SMTP_LINES))


def with_attachment(sender: str, to: str, typed: str, size: int) -> bytes:
    mail = MIMEMultipart()
    mail.attach(MIMEText(typed, "plain", "utf-8"))
    mail.attach(MIMEApplication(b"\0" * size, Name="photo.bin"))
    mail["From"], mail["To"], mail["Subject"] = sender, to, "Re: move"
    mail["Message-ID"] = make_msgid(domain="example.org")
    return bytes(mail.as_bytes(policy=SMTP_LINES))


def _q(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines()) + "\n"


def _html(text: str) -> str:
    from html import escape

    return "<br>".join(escape(line) for line in text.splitlines())


def dkim_key() -> tuple[bytes, bytes]:
    """A fresh 2048-bit RSA key: (private PEM, the DNS TXT record publishing it)."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)
