"""Outgoing webhooks per player and per league (issue 25, 5): the game's news beyond mail.

A webhook is a URL and a format: ``json`` (generic, signed), ``discord`` (``{"content": ...}``)
or ``slack`` (``{"text": ...}``), and the events it carries (:data:`EVENTS`). A player's hooks
hear of the games they sit in; a league's hooks (made by its directors) of the league's games
and its standings.

Written like mail: the consumer of a game's events (:func:`game_events`, called by
``service.games.consequences``) and of a league's standings (:func:`standings`) writes one
:class:`~service.models.WebhookDelivery` per hook and event, in the transaction of the event,
with its ``body`` made then from the events themselves: only what the event made public
(a move played, orders revealed as the turn resolved, a roll once rolled, a result), never
sealed orders before their turn resolves nor the game's dice seed. The send task
(:func:`send`, queued after commit; the sweep retries) locks the row, skips it when sent,
posts the body and records the answer; a failure (no answer, or not 2xx) is retried with
the mail's backoff (``PBEM_SEND_RETRY_SECONDS`` doubling, at most an hour apart) until
:data:`MAX_ATTEMPTS`.

Each request carries ``Pbem-Event`` (the event's type), ``Pbem-Delivery`` (the delivery's id,
the same on every retry: receivers dedupe by it) and ``Pbem-Signature: t=<unix
time>,v1=<hex>``, the HMAC-SHA256 with the hook's secret of ``<t>.<body>`` (as Stripe signs:
a receiver checks the signature and that ``t`` is recent, which stops replays).

Only ``http``/``https`` URLs, and only public addresses: a host that is (or resolves to) a
private, loopback, link-local or reserved address is refused when the hook is made and again
at each send, on the very addresses then connected to (a name may resolve otherwise later),
unless ``PBEM_WEBHOOKS_ALLOW_LOOPBACK=1`` lets loopback through (tests, a receiver on the
same host). Redirects are not followed and no proxy from the environment is used.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Exists, Select, delete, or_, select
from sqlalchemy.orm import Session

from service import i18n, notify
from service.config import Settings
from service.db import enqueue, work_of
from service.errors import Conflict, NotFound, Unprocessable
from service.games.events import (
    DiceRolled,
    GameEnded,
    GameEvent,
    Moved,
    OrdersRevealed,
    TurnResolved,
)
from service.i18n import N_
from service.leagues.models import Entry, League, Pairing
from service.models import (
    WEBHOOK_EVENTS,
    WEBHOOK_FORMATS,
    Game,
    Player,
    Seat,
    Webhook,
    WebhookDelivery,
    utcnow,
)
from service.tasks import Task

log = logging.getLogger(__name__)

EVENTS = WEBHOOK_EVENTS
LEAGUE_EVENTS = tuple(event for event in EVENTS if event != "your_turn")
FORMATS = WEBHOOK_FORMATS
MAX_HOOKS = 5
"""Per player, and per league."""
MAX_URL = 2000
MAX_ATTEMPTS = 10
"""Then the delivery is given up (``failed_at``): about six hours of tries at the defaults."""
TIMEOUT = 10.0
MAX_BACKOFF = notify.MAX_BACKOFF
SIGNATURE = "Pbem-Signature"
USER_AGENT = "pbem-webhooks/1"

EVENT_LABELS = {
    "your_turn": N_("your turn"),
    "moved": N_("another player moved"),
    "resolved": N_("a sealed turn resolved"),
    "result": N_("a game's result"),
    "standings": N_("league standings"),
}
"""What each event is called on the settings page."""
FORMAT_LABELS = {
    "json": N_("JSON, signed with the webhook's secret"),
    "discord": N_("Discord"),
    "slack": N_("Slack"),
}

TEXTS = {
    "your_turn": N_("Your turn in %(game)s (game %(id)s), turn %(turn)s: %(url)s"),
    "moved": N_("%(player)s moved in %(game)s (game %(id)s): %(move)s. %(url)s"),
    "resolved": N_("Turn %(turn)s of %(game)s (game %(id)s) is resolved: %(url)s"),
    "result": N_("%(game)s (game %(id)s) has ended: %(result)s. %(url)s"),
    "standings": N_("Standings of %(league)s after round %(round)s:"),
    "final": N_("Final standings of %(league)s:"),
}
"""The sentence a hook's message says (Discord, Slack; ``text`` in the JSON), in the
language of the hook's player (a league's: English)."""


# -- managing hooks (API and settings page) ---------------------------------------------------


def create(
    session: Session,
    settings: Settings,
    data: Mapping[str, Any],
    *,
    player: Player | None = None,
    league: League | None = None,
    actor: Player | None = None,
) -> tuple[Webhook, str]:
    """A new hook for ``player`` or ``league`` from ``{"url", "format", "events"}``; returns it
    and its secret (shown this once)."""
    allowed = LEAGUE_EVENTS if league is not None else EVENTS
    url = check_url(str(data.get("url") or ""), settings.webhooks_allow_loopback)
    form = data.get("format") or "json"
    if form not in FORMATS:
        raise Unprocessable(
            N_("the format %(value)s is not one of %(valid)s"),
            "bad_webhook_format",
            values={"value": str(form)[:40], "valid": ", ".join(FORMATS)},
        )
    events = data.get("events")
    chosen = list(allowed) if events is None else list(dict.fromkeys(events))
    for event in chosen:
        if event not in allowed:
            raise Unprocessable(
                N_("%(value)s is not an event a webhook here carries; they are %(valid)s"),
                "bad_webhook_event",
                values={"value": str(event)[:40], "valid": ", ".join(allowed)},
            )
    if not chosen:
        raise Unprocessable(
            N_("choose at least one event: %(valid)s"),
            "bad_webhook_event",
            values={"valid": ", ".join(allowed)},
        )
    if len(list_of(session, player=player, league=league)) >= MAX_HOOKS:
        raise Conflict(
            N_("this list of webhooks is full; remove one first (the most allowed: %(count)s)"),
            "too_many_webhooks",
            values={"count": MAX_HOOKS},
        )
    secret = "whsec_" + secrets.token_hex(24)
    hook = Webhook(
        player_id=player.id if player is not None else None,
        league_id=league.id if league is not None else None,
        url=url,
        format=form,
        events=chosen,
        secret=secret,
        created_by=(actor or player).id if (actor or player) is not None else None,  # type: ignore[union-attr]
        created_at=utcnow(),
    )
    session.add(hook)
    session.flush()
    return hook, secret


def list_of(
    session: Session, *, player: Player | None = None, league: League | None = None
) -> list[Webhook]:
    query = select(Webhook).order_by(Webhook.id)
    if league is not None:
        query = query.where(Webhook.league_id == league.id)
    else:
        assert player is not None
        query = query.where(Webhook.player_id == player.id, Webhook.league_id.is_(None))
    return list(session.scalars(query))


def remove(
    session: Session,
    hook_id: int,
    *,
    player: Player | None = None,
    league: League | None = None,
) -> None:
    """Remove a hook of ``player`` (or ``league``) and its deliveries not sent yet."""
    hook = next(
        (h for h in list_of(session, player=player, league=league) if h.id == hook_id), None
    )
    if hook is None:
        raise NotFound(
            N_("there is no webhook %(id)s here"), "no_such_webhook", values={"id": hook_id}
        )
    session.execute(delete(WebhookDelivery).where(WebhookDelivery.webhook_id == hook.id))
    session.delete(hook)


def to_json(session: Session, hook: Webhook, secret: str | None = None) -> dict[str, Any]:
    """A hook as the API shows it; its secret only when just made (``secret``)."""
    last = session.scalar(
        select(WebhookDelivery)
        .where(WebhookDelivery.webhook_id == hook.id)
        .order_by(WebhookDelivery.id.desc())
        .limit(1)
    )
    shown: dict[str, Any] = {
        "id": hook.id,
        "url": hook.url,
        "format": hook.format,
        "events": list(hook.events),
        "created_at": hook.created_at.isoformat(),
        "last_delivery": None
        if last is None
        else {
            "id": last.uid,
            "event": last.event,
            "attempts": last.attempts,
            "status": last.last_status,
            "sent_at": last.sent_at.isoformat() if last.sent_at else None,
            "failed": last.failed_at is not None,
            "error": last.last_error,
        },
    }
    if secret is not None:
        shown["secret"] = secret
    return shown


def check_url(url: str, allow_loopback: bool) -> str:
    """``url`` if it is an http(s) URL of a public host (or loopback, when allowed)."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_URL:
        raise Unprocessable(
            N_(
                "%(url)s is not a webhook URL: it must start with http:// or https:// and "
                "name a host, in at most %(max)s characters"
            ),
            "bad_webhook_url",
            values={"url": url[:100], "max": MAX_URL},
        )
    if parts.username or parts.password:
        raise Unprocessable(
            N_("%(url)s carries a user name or password; a webhook URL may not"),
            "bad_webhook_url",
            values={"url": parts.hostname},
        )
    host = parts.hostname
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        lowered = host.lower().rstrip(".")
        if lowered == "localhost" or lowered.endswith(".localhost"):
            address = ipaddress.ip_address("127.0.0.1")
        else:
            return url  # a name: checked again where it resolves, at each send
    if not _reachable(address, allow_loopback):
        raise _private(url, host)
    return url


def _private(url: str, host: str) -> Unprocessable:
    return Unprocessable(
        N_(
            "%(url)s points to a private or local address (%(host)s); a webhook must reach "
            "a public server"
        ),
        "private_webhook_url",
        values={"url": url[:100], "host": host},
    )


def _reachable(address: ipaddress.IPv4Address | ipaddress.IPv6Address, loopback: bool) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address.is_loopback:
        return loopback
    return address.is_global and not address.is_multicast


# -- writing deliveries, in the transaction of the event ---------------------------------------


def game_events(session: Session, game: Game, events: Sequence[GameEvent]) -> None:
    """One delivery per hook and public event of ``events`` (``games.consequences``): your
    turn (to the seats to act), a move (to the other seats), a sealed turn resolved with the
    orders it revealed and the roll, the result. Sealed orders being sent, withdrawn or
    defaulted before the turn resolves write nothing."""
    if not any(isinstance(event, Moved | TurnResolved | GameEnded) for event in events):
        return
    if work_of(session).webhooks.get(game.id) is False:  # read with the chain's head
        return
    hooks = session.scalars(_of_game(game.id).order_by(Webhook.id)).all()
    if not hooks:
        return
    settings = notify.settings_of(session)
    for kind, event_id, data, to in _game_news(game, events):
        for hook in hooks:
            if kind not in hook.events:
                continue
            if hook.league_id is None and to is not None and hook.player_id not in to:
                continue
            if hook.league_id is not None and kind == "your_turn":
                continue
            values = {"game": game.name, "id": game.id, "url": notify.game_url(settings, game.id)}
            values |= data.get("values", {})
            text = _say(session, hook, TEXTS[kind], values)
            payload = {
                "type": kind,
                "game": {"id": game.id, "name": game.name, "url": values["url"]},
                **{k: v for k, v in data.items() if k != "values"},
            }
            _write(session, hook, kind, event_id, payload, text)


def _of_game(game_id: int) -> Select[Webhook]:
    """The hooks of a game's players and of its league."""
    seated = select(Seat.player_id).where(Seat.game_id == game_id)
    league = select(Pairing.league_id).where(Pairing.game_id == game_id)
    return select(Webhook).where(or_(Webhook.player_id.in_(seated), Webhook.league_id.in_(league)))


def exists_for(game_id: int) -> Exists:
    """Whether the game has a hook: a column read with the chain's head (``games.consequences``)."""
    return _of_game(game_id).with_only_columns(Webhook.id).exists()


def _game_news(
    game: Game, events: Sequence[GameEvent]
) -> Iterable[tuple[str, str, dict[str, Any], set[int] | None]]:
    """(kind, event id, payload data, the players told or None for every seat)."""
    data: dict[str, Any]
    players = {seat.seat: seat.player_id for seat in game.seats}
    names = {seat.seat: seat.player.name for seat in game.seats}
    for event in events:
        if isinstance(event, Moved):
            others = {pid for seat, pid in players.items() if seat != event.seat}
            data = {
                "turn": event.turn,
                "seat": event.seat,
                "player": names.get(event.seat),
                "move": event.text,
                "values": {"player": names.get(event.seat, ""), "move": event.text},
            }
            yield "moved", f"game:{game.id}:turn:{event.turn}:moved", data, others
        elif isinstance(event, TurnResolved):
            if event.by in ("orders", "deadline"):
                orders = [
                    {"seat": e.seat, "player": names.get(e.seat), "orders": e.text}
                    for e in events
                    if isinstance(e, OrdersRevealed) and e.turn == event.number
                ]
                data = {
                    "turn": event.number,
                    "by": event.by,
                    "next_turn": event.opened,
                    "orders": orders,
                    "rolls": [
                        {"turn": e.turn, "roll": e.roll, "outcome": e.outcome}
                        for e in events
                        if isinstance(e, DiceRolled)
                    ],
                    "values": {"turn": event.number},
                }
                yield "resolved", f"game:{game.id}:turn:{event.number}:resolved", data, None
            if event.opened is not None:
                acting = event.state.to_act
                for seat in acting:
                    player_id = players.get(seat)
                    if player_id is None:
                        continue
                    data = {"turn": event.opened, "seat": seat, "values": {"turn": event.opened}}
                    key = f"game:{game.id}:turn:{event.opened}:your_turn:{player_id}"
                    yield "your_turn", key, data, {player_id}
        elif isinstance(event, GameEnded):
            result = f"{event.outcome.result} ({event.outcome.reason})"
            data = {
                "turn": event.turn,
                "result": event.outcome.result,
                "reason": event.outcome.reason,
                "places": list(event.outcome.places),
                "players": [names.get(seat) for seat in sorted(names)],
                "values": {"result": result},
            }
            yield "result", f"game:{game.id}:result", data, None


def standings(
    session: Session,
    league: League,
    round_no: int,
    document: Mapping[str, Any],
    final: bool = False,
) -> None:
    """The league's standings after round ``round_no`` (or final): to the league's hooks and
    to its players' hooks that carry standings. Called where the standings are mailed."""
    entrants = select(Entry.player_id).where(Entry.league_id == league.id)
    hooks = session.scalars(
        select(Webhook)
        .where(or_(Webhook.league_id == league.id, Webhook.player_id.in_(entrants)))
        .order_by(Webhook.id)
    ).all()
    hooks = [hook for hook in hooks if "standings" in hook.events]
    if not hooks:
        return
    rows = [
        {
            "rank": row["rank"],
            "player": row["player"]["name"],
            "points": row["points"],
            "wins": row["wins"],
            "draws": row["draws"],
            "losses": row["losses"],
        }
        for row in document["rows"]
    ]
    lines = "\n".join(f"{row['rank']}. {row['player']} {row['points']}" for row in rows)
    which = "final" if final else f"round:{round_no}"
    payload = {
        "type": "standings",
        "league": {"id": league.id, "name": league.name},
        "round": round_no,
        "final": final,
        "rows": rows,
    }
    for hook in hooks:
        head = _say(
            session,
            hook,
            TEXTS["final" if final else "standings"],
            {"league": league.name, "round": round_no},
        )
        _write(
            session, hook, "standings", f"league:{league.id}:{which}", payload, f"{head}\n{lines}"
        )


def _say(session: Session, hook: Webhook, message: str, values: Mapping[str, Any]) -> str:
    player = session.get(Player, hook.player_id) if hook.player_id is not None else None
    locale = i18n.locale_for(player) if player is not None else i18n.DEFAULT
    return i18n.gettext(locale, message, **values)


def _write(
    session: Session,
    hook: Webhook,
    kind: str,
    event_id: str,
    payload: Mapping[str, Any],
    text: str,
) -> None:
    now = utcnow()
    uid = uuid.uuid4().hex
    body = body_of(hook.format, {"id": event_id, "delivery": uid, **payload}, text, now)
    settings = notify.settings_of(session)
    row = WebhookDelivery(
        uid=uid,
        webhook_id=hook.id,
        event=kind,
        event_id=event_id,
        body=body,
        created_at=now,
        attempts=0,
        next_attempt_at=now + settings.requeue_after,
    )
    session.add(row)
    session.flush()
    enqueue(session, Task.SEND_WEBHOOK, row.id)


def body_of(form: str, payload: Mapping[str, Any], text: str, now: datetime) -> str:
    """The bytes to post: the JSON event, or the message Discord or Slack show."""
    if form == "discord":
        return json.dumps({"content": text[:2000]}, ensure_ascii=False)
    if form == "slack":
        return json.dumps({"text": text}, ensure_ascii=False)
    return json.dumps(
        {**payload, "created": now.isoformat(), "text": text},
        ensure_ascii=False,
        sort_keys=True,
        default=str,
    )


# -- sending, after commit ----------------------------------------------------------------------


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """``t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">``."""
    mac = hmac.new(secret.encode(), str(timestamp).encode() + b"." + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def verify(secret: str, header: str, body: bytes, tolerance: float = 300.0) -> bool:
    """What a receiver does (and the tests do): the signature matches, ``t`` is recent."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - timestamp) > tolerance:
        return False
    expected = sign(secret, timestamp, body)
    return hmac.compare_digest(expected, f"t={timestamp},v1={fields.get('v1', '')}")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is an answer, not a way to another (perhaps private) host


def _connect_checked(allow_loopback: bool) -> Callable[..., socket.socket]:
    """``socket.create_connection`` that resolves the host once, refuses it unless every
    address is one a webhook may reach, and connects to those very addresses (no second
    lookup that could answer otherwise: DNS rebinding)."""

    def connect(
        address: tuple[str, int], timeout: Any = None, source_address: Any = None
    ) -> socket.socket:
        host, port = address
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        for *_, where in found:
            ip = ipaddress.ip_address(str(where[0]).split("%")[0])
            if not _reachable(ip, allow_loopback):
                raise ValueError(f"{host} resolves to {ip}, a private or local address")
        failure: OSError = OSError(f"{host} has no address")
        for family, kind, proto, _, where in found:
            sock = socket.socket(family, kind, proto)
            try:
                if timeout is not None:
                    sock.settimeout(timeout)
                sock.connect(where)
                return sock
            except OSError as error:
                sock.close()
                failure = error
        raise failure

    return connect


def _checked(
    kind: type[http.client.HTTPConnection], allow_loopback: bool
) -> Callable[..., http.client.HTTPConnection]:
    def make(*args: Any, **kwargs: Any) -> http.client.HTTPConnection:
        connection = kind(*args, **kwargs)
        connection._create_connection = _connect_checked(allow_loopback)  # type: ignore[attr-defined]
        return connection

    return make


class _Http(urllib.request.HTTPHandler):
    def __init__(self, allow_loopback: bool) -> None:
        super().__init__()
        self.allow_loopback = allow_loopback

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_checked(http.client.HTTPConnection, self.allow_loopback), req)


class _Https(urllib.request.HTTPSHandler):
    def __init__(self, allow_loopback: bool) -> None:
        super().__init__()
        self.allow_loopback = allow_loopback

    def https_open(self, req: urllib.request.Request) -> Any:
        kind = _checked(http.client.HTTPSConnection, self.allow_loopback)
        return self.do_open(kind, req, context=self._context)  # type: ignore[attr-defined]


def opener(allow_loopback: bool) -> urllib.request.OpenerDirector:
    """No proxy from the environment, no redirect followed, only reachable addresses."""
    return urllib.request.build_opener(
        urllib.request.ProxyHandler({}),
        _NoRedirect,
        _Http(allow_loopback),
        _Https(allow_loopback),
    )


def post(settings: Settings, hook: Webhook, row: WebhookDelivery) -> int:
    """Post the delivery; its HTTP status (2xx), or raise."""
    check_url(hook.url, settings.webhooks_allow_loopback)
    body = row.body.encode()
    request = urllib.request.Request(hook.url, data=body, method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("User-Agent", USER_AGENT)
    request.add_header("Pbem-Event", row.event)
    request.add_header("Pbem-Delivery", row.uid)
    request.add_header(SIGNATURE, sign(hook.secret, int(time.time()), body))
    with opener(settings.webhooks_allow_loopback).open(request, timeout=TIMEOUT) as response:
        status = int(response.status)
    if not 200 <= status < 300:
        raise ValueError(f"HTTP {status}")
    return status


def send(session: Session, settings: Settings, delivery_id: int) -> float | None:
    """Send one delivery unless sent, given up or its hook removed; on failure, the seconds
    until the next try (the sweep sends it then)."""
    query = select(WebhookDelivery).where(WebhookDelivery.id == delivery_id).with_for_update()
    row = session.scalar(query)
    if row is None or row.sent_at is not None or row.failed_at is not None:
        return None
    hook = session.get(Webhook, row.webhook_id)
    if hook is None:
        return None
    now = utcnow()
    row.attempts += 1
    try:
        row.last_status = post(settings, hook, row)
    except Exception as error:  # any failure is kept on the row and retried
        if isinstance(error, urllib.error.HTTPError):
            row.last_status = error.code
        row.last_error = f"{type(error).__name__}: {error}"[:2000]
        if row.attempts >= MAX_ATTEMPTS:
            row.failed_at, row.next_attempt_at = now, None
            log.warning("webhook delivery %s given up: %s", row.id, row.last_error)
            return None
        first = settings.send_retry_seconds
        backoff = min(timedelta(seconds=first * 2 ** (row.attempts - 1)), MAX_BACKOFF)
        row.next_attempt_at = now + backoff
        log.warning(
            "webhook delivery %s failed (attempt %s, next in %.0f s): %s",
            row.id,
            row.attempts,
            backoff.total_seconds(),
            row.last_error,
        )
        return backoff.total_seconds()
    row.sent_at, row.last_error = now, None
    return None


def claim_due(session: Session, now: datetime, lease: timedelta) -> list[int]:
    """Unsent deliveries whose (next) attempt is due, leased like the outbox's rows."""
    query = (
        select(WebhookDelivery)
        .where(
            WebhookDelivery.sent_at.is_(None),
            WebhookDelivery.failed_at.is_(None),
            WebhookDelivery.next_attempt_at.is_not(None),
            WebhookDelivery.next_attempt_at <= now,
        )
        .order_by(WebhookDelivery.id)
        .limit(500)
        .with_for_update(skip_locked=True)
    )
    rows = session.scalars(query).all()
    for row in rows:
        row.next_attempt_at = now + lease
    return [row.id for row in rows]
