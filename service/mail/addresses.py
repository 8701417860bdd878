"""Per-player, per-game reply addresses that prove who a reply is for, with no password in mail.

Every notification's Reply-To is ``play+<token>@<domain>``. The token is the compact encoding of
(game id, player id, turn number) followed by an HMAC-SHA256 tag under a server secret, so
nobody can make a valid address for a game, a player or a turn they were not sent. What the
token does *not* prove is who is writing: the service must still check that the sender is one
of the player's addresses, and refuse a reply whose turn is not the current one.

The format, chosen to survive what mail systems do to addresses:

* ids are the service's integer primary keys (``players.id``, ``games.id``) and the turn is the
  game's turn number; each must be in ``0 <= n < 2**48``, which keeps the local part at most
  ``len("play+") + 55 = 60`` characters (RFC 5321 allows 64). Typical values give 30 to 40;
* payload = a version byte, then the three numbers as unsigned LEB128 varints;
* token = lowercase RFC 4648 base32 (``a-z2-7``, no padding) of payload + the first
  ``TAG_BYTES`` (96 bits) of HMAC-SHA256(secret, ``PURPOSE`` + payload). Lowercase because mail
  systems may lowercase local parts; reading is case-insensitive, so that costs nothing;
* the domain is not inside the tag: moving the service to another domain keeps old
  notifications answerable once the new domain is the one given to :func:`read_reply_address`.

Key rotation: sign with the current secret, read with it and any ``old_secrets`` until the
notifications signed with them have stopped mattering. Tags are compared in constant time.

League invitations have a second kind of address, ``play+<token>@<domain>`` too (so every
mailbox set up for replies takes them), naming (league id, player id): version byte
``LEAGUE_VERSION`` and a tag over ``LEAGUE_PURPOSE`` + payload. Both the version byte and the
signed purpose label differ, so a game token never reads as a league token nor the other way
round, even if someone re-labels the payload: the tag of one purpose never fits the other.
:func:`read_any_address` tells the two apart; :func:`read_reply_address` reads game tokens only.

``pbem doctor --round-trip`` has a third kind, naming one round trip (a random number): version
byte ``DOCTOR_VERSION``, tag over ``DOCTOR_PURPOSE``. The gateway records a reply to it and
never reads it as a move or a league answer.

A fourth kind answers a confirmation mail (``service/mail/confirmation.py``): version byte
``CONFIRM_VERSION``, a tag over ``CONFIRM_PURPOSE``, naming (held reply id, player id, code).
The code is a fresh random number mailed only to the player's registered address, so a reply
to this address proves control of that mailbox whether or not its mail is signed.

>>> address = make_reply_address(b"k", "pbem.example", 17, 4, 23)
>>> address
'play+aeiqifzx3zmkevgnkfgndqf7uu@pbem.example'
>>> read_reply_address(b"k", "pbem.example", address.upper())
ReplyToken(game_id=17, player_id=4, turn=23)
>>> read_any_address(b"k", "pbem.example", make_league_address(b"k", "pbem.example", 3, 4))
LeagueToken(league_id=3, player_id=4)
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Literal

__all__ = [
    "AddressError",
    "ConfirmToken",
    "DoctorToken",
    "LeagueToken",
    "ReplyToken",
    "make_confirm_address",
    "make_doctor_address",
    "make_league_address",
    "make_reply_address",
    "read_any_address",
    "read_reply_address",
]

LOCAL_PREFIX = "play+"
VERSION = 1
TAG_BYTES = 12
MAX_NUMBER = 2**48
PURPOSE = b"pbem reply address v1\x00"
"""Prefixed to what is signed, so a tag made for another use of the same secret never fits."""
LEAGUE_VERSION = 2
LEAGUE_PURPOSE = b"pbem league invitation address v2\x00"
"""The same for league invitation addresses: a game tag never fits a league payload."""
DOCTOR_VERSION = 3
DOCTOR_PURPOSE = b"pbem doctor round trip address v3\x00"
"""The same for ``pbem doctor``'s round-trip addresses: no game or league tag fits them."""
CONFIRM_VERSION = 4
CONFIRM_PURPOSE = b"pbem held reply confirmation v4\x00"
"""The same for the confirmation of a held reply."""

_BASE32_RE = re.compile("[a-z2-7]+")

Secret = bytes | str
ErrorCode = Literal["domain", "unknown", "forged"]


class AddressError(ValueError):
    """A reply address we cannot honour; ``str()`` is a reason a person can read.

    ``code`` tells the service what to do: ``domain`` (not addressed to us), ``unknown`` (our
    domain but not a reply address: answer once with how to take part), ``forged`` (looks like
    a reply address but we did not issue it: reject, change nothing).
    """

    def __init__(self, code: ErrorCode, reason: str) -> None:
        super().__init__(reason)
        self.code: ErrorCode = code
        self.reason = reason


@dataclass(frozen=True)
class ReplyToken:
    """Who a reply address was issued to: a player, in a game, for one turn."""

    game_id: int
    player_id: int
    turn: int


@dataclass(frozen=True)
class LeagueToken:
    """Who a league invitation's reply address was issued to: a player, for one league."""

    league_id: int
    player_id: int


@dataclass(frozen=True)
class DoctorToken:
    """One ``pbem doctor --round-trip``: its reply is recorded, never played."""

    check: int


@dataclass(frozen=True)
class ConfirmToken:
    """A confirmation address: the held reply it confirms, whose it is, and its code."""

    held_id: int
    player_id: int
    code: int


def make_reply_address(secret: Secret, domain: str, game_id: int, player_id: int, turn: int) -> str:
    """The reply address of ``player_id`` in ``game_id`` for the notification of ``turn``."""
    return _address(secret, domain, VERSION, PURPOSE, (game_id, player_id, turn))


def make_league_address(secret: Secret, domain: str, league_id: int, player_id: int) -> str:
    """The reply address of ``player_id``'s invitation to ``league_id``."""
    return _address(secret, domain, LEAGUE_VERSION, LEAGUE_PURPOSE, (league_id, player_id))


def make_doctor_address(secret: Secret, domain: str, check: int) -> str:
    """The reply address of the round trip numbered ``check`` (``pbem doctor``)."""
    return _address(secret, domain, DOCTOR_VERSION, DOCTOR_PURPOSE, (check,))


def make_confirm_address(
    secret: Secret, domain: str, held_id: int, player_id: int, code: int
) -> str:
    """The reply address of the confirmation mail of held reply ``held_id``."""
    return _address(secret, domain, CONFIRM_VERSION, CONFIRM_PURPOSE, (held_id, player_id, code))


def _address(
    secret: Secret, domain: str, version: int, purpose: bytes, numbers: tuple[int, ...]
) -> str:
    payload = bytes([version]) + b"".join(_varint(n) for n in numbers)
    token = base64.b32encode(payload + _tag(secret, payload, purpose)).decode("ascii")
    return f"{LOCAL_PREFIX}{token.rstrip('=').lower()}@{_normal_domain(domain)}"


def read_reply_address(
    secret: Secret, domain: str, address: str, *, old_secrets: Iterable[Secret] = ()
) -> ReplyToken:
    """The token of a game reply address we issued; :class:`AddressError` for anything else
    (a league invitation address too: it is ``forged`` as a game address).

    ``address`` may carry a display name or angle brackets (``Ann <play+...@pbem.example>``).
    """
    payload = _authentic(secret, domain, address, old_secrets, PURPOSE)
    numbers = _numbers(payload, VERSION, 3) if payload is not None else None
    if numbers is None:
        raise AddressError("forged", "this address was not issued by us")
    return ReplyToken(*numbers)


def read_any_address(
    secret: Secret, domain: str, address: str, *, old_secrets: Iterable[Secret] = ()
) -> ReplyToken | LeagueToken | DoctorToken | ConfirmToken:
    """A game reply token, a league invitation token, a doctor round-trip token or a
    confirmation token;
    :class:`AddressError` otherwise."""
    try:
        return read_reply_address(secret, domain, address, old_secrets=old_secrets)
    except AddressError as error:
        if error.code != "forged":
            raise
    payload = _authentic(secret, domain, address, old_secrets, LEAGUE_PURPOSE)
    numbers = _numbers(payload, LEAGUE_VERSION, 2) if payload is not None else None
    if numbers is not None:
        return LeagueToken(*numbers)
    payload = _authentic(secret, domain, address, old_secrets, DOCTOR_PURPOSE)
    numbers = _numbers(payload, DOCTOR_VERSION, 1) if payload is not None else None
    if numbers is not None:
        return DoctorToken(*numbers)
    payload = _authentic(secret, domain, address, old_secrets, CONFIRM_PURPOSE)
    numbers = _numbers(payload, CONFIRM_VERSION, 3) if payload is not None else None
    if numbers is None:
        raise AddressError("forged", "this address was not issued by us")
    return ConfirmToken(*numbers)


def _authentic(
    secret: Secret, domain: str, address: str, old_secrets: Iterable[Secret], purpose: bytes
) -> bytes | None:
    """The payload of ``address`` if one of the keys signed it for ``purpose``, else None."""
    local, at, address_domain = parseaddr(address)[1].rpartition("@")
    if not at or _normal_domain(address_domain) != _normal_domain(domain):
        raise AddressError("domain", "not our domain")
    local = local.lower()
    if not local.startswith(LOCAL_PREFIX):
        raise AddressError("unknown", "this is not one of our reply addresses")
    blob = _unbase32(local[len(LOCAL_PREFIX) :])
    payload, tag = blob[:-TAG_BYTES], blob[-TAG_BYTES:]
    # Every secret is tried, even after a match, so timing does not tell which one signed.
    keys = (secret, *old_secrets)
    matches = [hmac.compare_digest(tag, _tag(key, payload, purpose)) for key in keys]
    return payload if any(matches) else None


def _tag(secret: Secret, payload: bytes, purpose: bytes = PURPOSE) -> bytes:
    key = secret.encode("utf-8") if isinstance(secret, str) else secret
    return hmac.new(key, purpose + payload, hashlib.sha256).digest()[:TAG_BYTES]


def _normal_domain(domain: str) -> str:
    return domain.strip().rstrip(".").lower()


def _varint(number: int) -> bytes:
    if not 0 <= number < MAX_NUMBER:
        raise ValueError(f"{number} cannot go in a reply address: ids and turns are 0..2**48-1")
    out = bytearray()
    while True:
        low, number = number & 0x7F, number >> 7
        out.append(low | (0x80 if number else 0))
        if not number:
            return bytes(out)


def _unbase32(token: str) -> bytes:
    """The bytes of a token, or b"" when it is not base32 (which then fails the tag check)."""
    if not _BASE32_RE.fullmatch(token):  # also keeps out "ß", which .upper() makes "SS"
        return b""
    try:
        return base64.b32decode(token.upper() + "=" * (-len(token) % 8))
    except binascii.Error:  # a length no base32 text can have
        return b""


def _numbers(payload: bytes, version: int, count: int) -> tuple[int, ...] | None:
    """``count`` numbers from an authentic payload of ``version``; None for anything else.

    The payload is authentic, so it was made by :func:`_address`; the checks only guard
    against another format signed with the same key and purpose.
    """
    if payload[:1] != bytes([version]):
        return None
    numbers: list[int] = []
    value = shift = 0
    for byte in payload[1:]:
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            numbers.append(value)
            value = shift = 0
    if len(numbers) != count or shift:
        return None
    return tuple(numbers)
