"""Sealed-order receipts: a commitment each player gets for their orders, checkable afterwards.

When a seat submits sealed orders it is told ``receipt = hex(SHA-256(utf8(
"<game>:<turn>:<seat>:<orders>:<salt>")))``: the game number, the turn number, the seat
numbered from 0, the orders as the engine wrote them back, and a random 32-hex-digit salt kept
secret. Once the turn is resolved (never before, and never for a turn a resignation ended) the
result mail shows every seat's orders, salt and receipt, so anyone can recompute each receipt
from the mail alone::

    printf '%s' '12:3:0:01234567:5a1f...' | sha256sum

or save the mail and run ``pbem receipt verify MAIL.eml`` (:func:`check_mail`).
"""

from __future__ import annotations

import email
import email.policy
import functools
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any, Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import i18n
from service.i18n import N_
from service.models import Game, Order, OrderStatus

REVEALED = OrderStatus.RESOLVED
"""The status of orders a resolved sealed turn applied (defaults have no receipt)."""

HEADING = N_("Sealed orders of game %(number)s, turn %(turn)s, revealed:")
SEAT = N_("%(name)s (seat %(seat)s):")
SALT, RECEIPT = N_("salt"), N_("receipt")
"""The words of a receipt block (``email_templates/_receipts.txt``), in the reader's language:
:func:`check_text` reads them back in any of them."""


def _pattern(text: str, **groups: str) -> str:
    """``text`` as a regular expression, each ``%(name)s`` placeholder made ``groups[name]``."""
    found = re.escape(text)
    for name, group in groups.items():
        found = found.replace(re.escape(f"%({name})s"), group)
    return found


@functools.cache
def _patterns() -> tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]:
    """The heading and entry of a receipt block in each language, each written once."""
    found: dict[str, tuple[re.Pattern[str], re.Pattern[str]]] = {}
    for code in i18n.LANGUAGES:
        say = i18n.translations(code).ugettext
        block = _pattern(say(HEADING), number=r"(?P<game>\d+)", turn=r"(?P<turn>\d+)")
        seat = _pattern(say(SEAT), name="(?P<name>.+?)", seat=r"(?P<seat>\d+)")
        entry = (
            rf"^ {{2}}{seat} (?P<orders>.*)\n"
            rf" {{4}}{re.escape(say(SALT))} (?P<salt>[0-9a-f]+)\n"
            rf" {{4}}{re.escape(say(RECEIPT))} (?P<receipt>[0-9a-f]{{64}})$"
        )
        found.setdefault(block + entry, (re.compile(f"^{block}$", re.M), re.compile(entry, re.M)))
    return tuple(found.values())


def preimage(game_id: int | str, turn: int, seat: int, orders: str, salt: str) -> str:
    """The text a receipt is the SHA-256 of."""
    return f"{game_id}:{turn}:{seat}:{orders}:{salt}"


def receipt(game_id: int | str, turn: int, seat: int, orders: str, salt: str) -> str:
    """SHA-256 (hex) over the orders and a secret salt revealed with them after resolution."""
    return hashlib.sha256(preimage(game_id, turn, seat, orders, salt).encode()).hexdigest()


def revealed(session: Session, game: Game, turn: int, names: tuple[str, ...]) -> dict[str, Any]:
    """The mail context ``receipts`` of a resolved sealed turn: every seat's orders, salt and
    receipt (seats whose orders the deadline supplied have none and are left out)."""
    orders = session.scalars(
        select(Order)
        .where(Order.game_id == game.id, Order.turn == turn, Order.status == REVEALED)
        .where(Order.receipt.is_not(None), Order.receipt_salt.is_not(None))
        .order_by(Order.seat)
    ).all()
    return revealed_of(game, turn, names, orders)


class OrderLike(Protocol):
    @property
    def seat(self) -> int: ...
    @property
    def parsed(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def receipt(self) -> str | None: ...
    @property
    def receipt_salt(self) -> str | None: ...


def revealed_of(
    game: Game, turn: int, names: tuple[str, ...], rows: Sequence[OrderLike]
) -> dict[str, Any]:
    """:func:`revealed` from the turn's order rows at hand (of any status)."""
    orders = sorted(
        (
            order
            for order in rows
            if order.status == REVEALED
            and order.receipt is not None
            and order.receipt_salt is not None
        ),
        key=lambda order: order.seat,
    )
    return {
        "game_id": game.id,
        "turn": turn,
        "seats": [
            {
                "seat": order.seat,
                "name": names[order.seat],
                "orders": order.parsed,
                "salt": order.receipt_salt,
                "receipt": order.receipt,
            }
            for order in orders
        ],
    }


@dataclass(frozen=True)
class Check:
    """One receipt recomputed from a mail."""

    name: str
    seat: int
    orders: str
    receipt: str
    recomputed: str

    @property
    def matches(self) -> bool:
        return self.receipt == self.recomputed

    def line(self) -> str:
        verdict = "matches" if self.matches else f"MISMATCH (the text gives {self.recomputed})"
        return f"{self.name} (seat {self.seat}): {self.orders}: receipt {verdict}"


def text_of(raw: bytes) -> str:
    """The plain text of a mail (a raw message), or the bytes as text when it is no message."""
    message = email.message_from_bytes(raw, _class=EmailMessage, policy=email.policy.default)
    if isinstance(message, EmailMessage) and message.get("Subject") is not None:
        part = message.get_body(preferencelist=("plain",))
        if part is not None:
            return str(part.get_content())
    return raw.decode("utf-8", errors="replace")


def check_text(text: str) -> list[Check]:
    """Every receipt block in a result mail's text, recomputed."""
    text = text.replace("\r\n", "\n")
    checks = []
    for heading, entries in _patterns():  # a mail is in one language: one of them matches
        blocks = list(heading.finditer(text))
        for index, block in enumerate(blocks):
            end = blocks[index + 1].start() if index + 1 < len(blocks) else len(text)
            game_id, turn = int(block["game"]), int(block["turn"])
            for entry in entries.finditer(text, block.end(), end):
                seat = int(entry["seat"])
                again = receipt(game_id, turn, seat, entry["orders"], entry["salt"])
                checks.append(Check(entry["name"], seat, entry["orders"], entry["receipt"], again))
        if checks:
            break
    return checks


def check_mail(raw: bytes) -> list[Check]:
    """Every receipt of a saved result mail (``.eml``, or its text), recomputed."""
    return check_text(text_of(raw))
