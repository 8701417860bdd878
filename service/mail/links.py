"""Signed links in mail: a player's mail-settings page, without a password in the mail.

A token is ``<player id>.<tag>``: the tag is the first 96 bits of HMAC-SHA256 under the server
secret, base32 like the reply addresses, so only the service makes a valid one and a token
for one player never opens another's settings.

>>> token = settings_token(b"k", 42)
>>> token
'42.ua5vbfpqpbwtqksxneaq'
>>> read_settings_token(b"k", token)
42
>>> read_settings_token(b"k", "43." + token.split(".")[1]) is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac

PURPOSE = b"pbem mail settings v1\x00"
TAG_BYTES = 12


def settings_token(secret: bytes, player_id: int) -> str:
    return f"{player_id}.{_tag(secret, player_id)}"


def read_settings_token(secret: bytes, token: str) -> int | None:
    """The player id a token was made for, or None for anything we did not make."""
    number, _, tag = token.partition(".")
    if not number.isdigit() or len(number) > 15:
        return None
    player_id = int(number)
    given = tag.lower().encode("utf-8", "surrogatepass")
    return player_id if hmac.compare_digest(given, _tag(secret, player_id).encode()) else None


def _tag(secret: bytes, player_id: int) -> str:
    digest = hmac.new(secret, PURPOSE + str(player_id).encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:TAG_BYTES]).decode("ascii").rstrip("=").lower()
