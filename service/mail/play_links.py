"""Signed one-click play links: ``/play/<token>`` for one player and one turn of one game.

A token is ``<game>.<player>.<turn>.<tag>``: the tag is the first 96 bits of HMAC-SHA256 under
``PBEM_SECRET_KEY`` (the key that signs reply addresses), base32, so only the service makes a
valid one and a token opens only its own player's seat in its own game. It needs no password
and carries its turn: once that turn is over the page only says so (it expires with the turn).

>>> token = play_token(b"k", 7, 42, 3)
>>> read_play_token(b"k", token)
PlayToken(game_id=7, player_id=42, turn=3)
>>> read_play_token(b"k", token.replace(".3.", ".4.")) is None
True
>>> read_play_token(b"k", "7.42.\u00b2." + token.split(".")[3]) is None  # a digit, not ASCII
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import NamedTuple

PURPOSE = b"pbem play link v1\x00"
TAG_BYTES = 12
MAX_DIGITS = 10


class PlayToken(NamedTuple):
    game_id: int
    player_id: int
    turn: int


def play_token(secret: bytes, game_id: int, player_id: int, turn: int) -> str:
    body = f"{game_id}.{player_id}.{turn}"
    return f"{body}.{_tag(secret, body)}"


def read_play_token(secret: bytes, token: str) -> PlayToken | None:
    """What a token was made for, or None for anything the service did not make."""
    parts = token.split(".")
    if len(parts) != 4 or not all(_is_number(p) for p in parts[:3]):
        return None
    body = ".".join(parts[:3])
    # bytes, because compare_digest refuses str with characters outside ASCII
    if not hmac.compare_digest(parts[3].lower().encode(), _tag(secret, body).encode()):
        return None
    return PlayToken(int(parts[0]), int(parts[1]), int(parts[2]))


def _is_number(part: str) -> bool:
    return part.isascii() and part.isdigit() and len(part) <= MAX_DIGITS


def _tag(secret: bytes, body: str) -> str:
    digest = hmac.new(secret, PURPOSE + body.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:TAG_BYTES]).decode("ascii").rstrip("=").lower()
