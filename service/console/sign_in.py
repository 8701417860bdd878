"""Passwordless sign-in: a signed, expiring link mailed to a player's own address.

A token is ``<player id>.<expires, Unix seconds>.<tag>``: the tag is the first 96 bits of
HMAC-SHA256 under ``PBEM_SECRET_KEY`` (the key of the reply addresses, the settings and play
links), with its own purpose string, so no other link of ours opens a session and a changed
expiry breaks the tag. Each link signs in once: signing in records the link's expiry on the
player (``Player.sign_in_spent_until``), and a link that expires no later than that one (it,
or any older link) signs in no more; a newer link still does.

How many links an address gets is counted in the outbox (the mails already sent), so a
flood of requests for one address mails it at most ``PER_HOUR`` links an hour.

>>> token = sign_in_token(b"k", 42, 1_800_000_000)
>>> read_sign_in_token(b"k", token, 1_799_999_999)
(42, None)
>>> read_sign_in_token(b"k", token, 1_800_000_000)
(42, 'expired')
>>> read_sign_in_token(b"k", token.replace(".18", ".19"), 0)
(None, 'invalid')
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import notify
from service.config import Settings
from service.models import Outbox, Player, utcnow

PURPOSE = b"pbem sign-in link v1\x00"
TAG_BYTES = 12
LIFETIME = timedelta(minutes=30)
PER_HOUR = 3
"""Sign-in mails one address gets at most in an hour."""
KIND = "sign_in"


def sign_in_token(secret: bytes, player_id: int, expires: int) -> str:
    body = f"{player_id}.{expires}"
    return f"{body}.{_tag(secret, body)}"


def read_sign_in_token(secret: bytes, token: str, now: float) -> tuple[int | None, str | None]:
    """``(player id, None)`` for a good link, ``(player id, "expired")`` for a genuine link
    past its time, ``(None, "invalid")`` for anything the service did not make."""
    parts = token.split(".")
    if len(parts) != 3 or not all(p.isascii() and p.isdigit() and len(p) <= 12 for p in parts[:2]):
        return None, "invalid"
    body = f"{parts[0]}.{parts[1]}"
    # bytes, because compare_digest refuses str with characters outside ASCII
    if not hmac.compare_digest(parts[2].lower().encode(), _tag(secret, body).encode()):
        return None, "invalid"
    return int(parts[0]), ("expired" if now >= int(parts[1]) else None)


def spend(player: Player, token: str) -> bool:
    """Use up ``token`` (already read as genuine and unexpired) and every older link of
    ``player``; False when it was used up already. The caller holds the player's row lock."""
    expires = int(token.split(".")[1])
    if expires <= player.sign_in_spent_until:
        return False
    player.sign_in_spent_until = expires
    return True


def spent(player: Player, token: str) -> bool:
    return int(token.split(".")[1]) <= player.sign_in_spent_until


def expiry_of(token: str) -> datetime:
    """When a token (already read as genuine) stops working."""
    return datetime.fromtimestamp(int(token.split(".")[1]), UTC)


def _tag(secret: bytes, body: str) -> str:
    digest = hmac.new(secret, PURPOSE + body.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:TAG_BYTES]).decode("ascii").rstrip("=").lower()


def sent_lately(session: Session, address: str, now: datetime) -> int:
    """Sign-in mails queued for ``address`` in the hour before ``now``."""
    query = select(func.count()).where(
        Outbox.kind == KIND,
        Outbox.to_address == address,
        Outbox.created_at > now - timedelta(hours=1),
    )
    return session.scalar(query) or 0


def mail_link(
    session: Session, settings: Settings, player: Player, address: str, now: datetime | None = None
) -> bool:
    """Queue a sign-in mail to ``address`` (one of ``player``'s own); False when the address
    already had ``PER_HOUR`` of them in the last hour (nothing is queued)."""
    now = now or utcnow()
    if sent_lately(session, address, now) >= PER_HOUR:
        return False
    expires = now + LIFETIME
    token = sign_in_token(settings.secret(), player.id, int(expires.timestamp()))
    # To the address as a string: the very address asked for, and sent whatever the player's
    # mail preference (they asked for this mail); the reader's own values are given here.
    reader = notify.reader_context(settings, player, address)
    context = {
        **reader,
        "sign_in_url": f"{settings.public_url}/sign-in/{token}",
        "expires": expires,
        "minutes": int(LIFETIME.total_seconds() // 60),
        "ask_url": f"{settings.public_url}/sign-in",
    }
    notify.queue_mail(session, kind=KIND, to=address, game=None, context=context, now=now)
    return True
