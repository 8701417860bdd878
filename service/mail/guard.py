"""Pure policies that keep the gateway from mail loops and from being used to flood an address.

* :func:`unanswerable`: why a mail must get no reply at all. Machine-sent mail (auto-replies,
  bounces, bulk and list mail) is recognised from its headers by ``extract.py`` when it builds
  the :class:`~service.mail.extract.Reply` (``Reply.automated``); this adds what only the
  gateway knows: mail from our own domain, and senders that say they read nothing. Such mail
  should not be acted on either: an out-of-office text is no move.
* :class:`ErrorReplyLimiter`: at most so many error replies per address per hour and per day.
  It decides from the times of the error replies already sent to that address, which the
  service keeps in its database; the decision itself is a pure function of those times.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.mail.extract import Reply

__all__ = ["ErrorReplyLimiter", "LimitDecision", "unanswerable"]

_NO_REPLY_RE = re.compile(r"(?:no|do[-_.]?not)[-_.]?reply(?:[-+_.].*)?")


def unanswerable(reply: Reply, our_domain: str) -> str:
    """Why ``reply`` must not be answered, or "" when a person may be answered.

    >>> unanswerable(Reply("e2-e4", sender="ann@example.com"), "pbem.example")
    ''
    >>> unanswerable(Reply("", sender="noreply@shop.example"), "pbem.example")
    'sent from a no-reply address'
    """
    if reply.automated:
        return reply.automated
    local, at, domain = reply.sender.lower().rpartition("@")
    if not at or not local:
        return "no sender address"
    if domain.rstrip(".") == our_domain.strip().rstrip(".").lower():
        return "sent from our own domain (a reply would loop)"
    if _NO_REPLY_RE.fullmatch(local):
        return "sent from a no-reply address"
    return ""


@dataclass(frozen=True)
class LimitDecision:
    """Whether one more error reply may go out now; if not, why and when it may again."""

    allowed: bool
    reason: str = ""
    retry_at: datetime | None = None
    """When the next error reply would be allowed if none is sent meanwhile."""


@dataclass(frozen=True)
class ErrorReplyLimiter:
    """At most ``per_hour`` error replies to one address in any hour, ``per_day`` in any day.

    Windows slide: a reply sent at 10:15 counts against the hour until 11:15. Times are aware
    datetimes; a send time in the future (clock skew) counts as recent, which errs on the quiet
    side. A refused error reply is dropped, not queued: telling a flood about the limit would
    be one more reply.

    >>> from datetime import UTC
    >>> now = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
    >>> limiter = ErrorReplyLimiter(per_hour=1, per_day=3)
    >>> limiter.decide([], now).allowed
    True
    >>> limiter.decide([now - timedelta(minutes=10)], now).retry_at
    datetime.datetime(2025, 3, 3, 12, 50, tzinfo=datetime.timezone.utc)
    """

    per_hour: int = 5
    per_day: int = 20

    def __post_init__(self) -> None:
        if not 1 <= self.per_hour <= self.per_day:
            raise ValueError("need 1 <= per_hour <= per_day")

    @property
    def lookback(self) -> timedelta:
        """How far back the service must fetch send times; older ones never matter."""
        return timedelta(days=1)

    def decide(self, sent: Iterable[datetime], now: datetime) -> LimitDecision:
        """May one more error reply go to the address that got replies at ``sent`` times?"""
        recent = sorted(time for time in sent if time > now - self.lookback)
        reasons: list[str] = []
        frees: list[datetime] = []
        for window, limit, name in (
            (timedelta(hours=1), self.per_hour, "hour"),
            (self.lookback, self.per_day, "day"),
        ):
            inside = [time for time in recent if time > now - window]
            if len(inside) >= limit:
                reasons.append(f"{len(inside)} error replies in the last {name} (limit {limit})")
                # Room again once all but limit - 1 of them have left the window.
                frees.append(inside[len(inside) - limit] + window)
        if not reasons:
            return LimitDecision(True)
        return LimitDecision(False, "; ".join(reasons), max(frees))
