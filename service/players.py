"""Players: accounts, e-mail addresses, API tokens, roles, preferences and vacations."""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, selectinload

from service import i18n, notify
from service.errors import BadRequest, Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from service.i18n import N_
from service.models import (
    BOARD_TEXT,
    NOTIFY,
    OWN_COPY,
    ROLES,
    ApiToken,
    Email,
    Game,
    GameStatus,
    Player,
    Seat,
    Vacation,
    utcnow,
)

EMAIL_PATTERN = r"^[!-?A-~]+@[!-?A-~]+\.[!-?A-~]+$"
"""Printable ASCII around one ``@`` (the API's document states the same pattern): the mail
we send cannot carry another address yet (Python's email package refuses a non-ASCII
address in a header)."""
EMAIL = re.compile(EMAIL_PATTERN)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def authenticate(session: Session, token: str) -> Player:
    """The player of an unrevoked API token: one statement (every API call makes it)."""
    player = session.scalar(
        select(Player)
        .join(ApiToken, ApiToken.player_id == Player.id)
        .where(ApiToken.token_hash == token_hash(token), ApiToken.revoked_at.is_(None))
    )
    if player is None:
        raise Unauthorized(N_("the API token is unknown or was replaced; ask for a new one"))
    return player


def get(session: Session, player_id: int) -> Player:
    player = session.get(Player, player_id)
    if player is None:
        raise NotFound(N_("there is no player %(id)s"), values={"id": player_id})
    return player


def by_address(session: Session, address: str) -> Player | None:
    """The player who owns an e-mail address (the gateway's way in)."""
    row = session.scalar(select(Email).where(Email.address == address.strip().lower()))
    return row.player if row else None


def create(session: Session, actor: Player | None, data: Mapping[str, Any]) -> tuple[Player, str]:
    """A new player and their first API token (shown once). ``actor`` None: the command line."""
    if actor is not None and not actor.has_role("td", "admin"):
        raise Forbidden(N_("only tournament directors and admins create players"))
    name = _text(data.get("name"), "name")
    emails = data.get("emails")
    if not isinstance(emails, list) or not emails:
        raise BadRequest(N_("emails must be a list of one or more e-mail addresses"))
    roles = data.get("roles", ["player"])
    if not isinstance(roles, list) or not set(roles) <= set(ROLES):
        raise BadRequest(
            N_("roles must be a list drawn from %(roles)s"), values={"roles": ", ".join(ROLES)}
        )
    if "admin" in roles and actor is not None and not actor.has_role("admin"):
        raise Forbidden(N_("only admins create admins"))
    player = Player(name=name, roles=sorted(set(roles) | {"player"}))
    _preferences(player, data)
    for address in _once_each(emails):
        player.emails.append(Email(address=_address(session, address)))
    session.add(player)
    session.flush()
    return player, issue_token(session, player)


def issue_token(session: Session, player: Player) -> str:
    """A fresh token for ``player``; every earlier one stops working."""
    now = utcnow()
    for old in player.tokens:
        if old.revoked_at is None:
            old.revoked_at = now
    token = "pbem_" + secrets.token_urlsafe(32)
    player.tokens.append(ApiToken(token_hash=token_hash(token)))
    session.flush()
    return token


def update(session: Session, player: Player, data: Mapping[str, Any]) -> Player:
    """A player's own preferences: name, time zone, notification preference, addresses."""
    allowed = {
        "name",
        "time_zone",
        "notify",
        "emails",
        "own_copy",
        "board_flip",
        "board_text",
        "language",
        "send_delay_minutes",
        "forwarded_addresses",
    }
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise BadRequest(
            N_("cannot change %(unknown)s; fields are %(fields)s"),
            values={"unknown": ", ".join(unknown), "fields": ", ".join(allowed)},
        )
    if "name" in data:
        player.name = _text(data["name"], "name")
    _preferences(player, data)
    if "emails" in data:
        emails = data["emails"]
        if not isinstance(emails, list) or not emails:
            raise BadRequest(N_("emails must be a list of one or more e-mail addresses"))
        mine = {email.address: email for email in player.emails}
        wanted = _once_each(emails)
        player.emails[:] = [
            mine[a] if a in mine else Email(address=_address(session, a)) for a in wanted
        ]
    if "forwarded_addresses" in data:
        _forwarded(player, data["forwarded_addresses"])
    session.flush()
    return player


def _forwarded(player: Player, given: Any) -> None:
    """Own addresses whose mail comes through a forwarder: no sender authentication for them
    (see ``service/mail/authentication.py``); every other address is checked again."""
    if not isinstance(given, list) or not all(isinstance(a, str) for a in given):
        raise BadRequest(N_("forwarded_addresses must be a list of your own e-mail addresses"))
    wanted = {address.strip().lower() for address in given}
    mine = {email.address for email in player.emails}
    if wanted - mine:
        raise Unprocessable(
            N_("%(addresses)s is not one of your addresses"),
            "not_yours",
            values={"addresses": ", ".join(sorted(wanted - mine))},
        )
    for email in player.emails:
        email.sender_checks = email.address not in wanted


def _preferences(player: Player, data: Mapping[str, Any]) -> None:
    if "time_zone" in data:
        zone = data["time_zone"]
        if not isinstance(zone, str) or zone not in available_timezones():
            raise BadRequest(
                N_("unknown time zone %(zone)s; use a name like 'Europe/Vienna'"),
                values={"zone": repr(zone)},
            )
        ZoneInfo(zone)
        player.time_zone = zone
    if "notify" in data:
        if data["notify"] not in NOTIFY:
            raise BadRequest(
                N_("notify must be one of %(choices)s"), values={"choices": ", ".join(NOTIFY)}
            )
        player.notify = data["notify"]
    if "own_copy" in data:
        if data["own_copy"] not in OWN_COPY:
            raise BadRequest(
                N_(
                    "own_copy must be one of %(choices)s (the mail you get of your own "
                    "move: all of it, a one-line receipt, or none)"
                ),
                values={"choices": ", ".join(OWN_COPY)},
            )
        player.own_copy = data["own_copy"]
    if "board_flip" in data:
        if not isinstance(data["board_flip"], bool):
            raise BadRequest(N_("board_flip must be true (boards from your side) or false"))
        player.board_flip = data["board_flip"]
    if "board_text" in data:
        if data["board_text"] not in BOARD_TEXT:
            raise BadRequest(
                N_(
                    "board_text must be one of %(choices)s (the board in a mail's "
                    "text part: the position in words and the grid, or the words alone)"
                ),
                values={"choices": ", ".join(BOARD_TEXT)},
            )
        player.board_text = data["board_text"]
    if "language" in data:
        player.language = _language(data["language"])
    if "send_delay_minutes" in data:
        player.send_delay_minutes = valid_delay(data["send_delay_minutes"])
    if "vacation_days_per_year" in data:
        days = data["vacation_days_per_year"]
        if isinstance(days, bool) or not isinstance(days, int | float) or not 0 <= days <= 366:
            raise BadRequest(N_("vacation_days_per_year must be a number from 0 to 366"))
        player.vacation_days_per_year = float(days)


MAX_SEND_DELAY_MINUTES = 24 * 60


def valid_delay(value: Any) -> int:
    """A send delay (issue 25) in whole minutes, 0 (off) to a day."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1440:
        raise BadRequest(
            N_("send_delay_minutes must be a whole number of minutes from 0 (off) to %(most)s"),
            values={"most": MAX_SEND_DELAY_MINUTES},
        )
    return value


def _language(given: Any) -> str:
    code = i18n.supported(given) if isinstance(given, str) else None
    if code is None or code != given:
        raise BadRequest(
            N_("language must be one of %(choices)s; got %(given)s"),
            values={"choices": ", ".join(i18n.LANGUAGES), "given": repr(given)},
        )
    return code


def _once_each(addresses: list[Any]) -> list[str]:
    """The addresses as stored (trimmed, lower case); one given twice, in any spelling, is
    refused by name (an address belongs to one player, once)."""
    cleaned = [str(address).strip().lower() for address in addresses]
    twice = next((a for i, a in enumerate(cleaned) if a in cleaned[:i]), None)
    if twice is not None:
        raise Conflict(
            N_("emails lists the address %(address)s twice; give each address once"),
            values={"address": twice},
        )
    return cleaned


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip() or len(value) > 80:
        raise BadRequest(
            N_("%(name)s must be a non-empty text of at most 80 characters"), values={"name": name}
        )
    return value.strip()


def _address(session: Session, address: Any) -> str:
    if not isinstance(address, str) or not EMAIL.match(address.strip()):
        raise BadRequest(
            N_("%(address)s is not an e-mail address"), values={"address": repr(address)}
        )
    cleaned = str(address).strip().lower()
    if len(cleaned) > 254:
        raise Unprocessable(
            N_("%(start)s... is longer than an e-mail address may be (254)"),
            values={"start": cleaned[:40]},
        )
    if session.scalar(select(Email).where(Email.address == cleaned)):
        raise Conflict(
            N_("the address %(address)s already belongs to a player"), values={"address": cleaned}
        )
    return cleaned


def to_json(player: Player, private: bool) -> dict[str, Any]:
    data: dict[str, Any] = {"id": player.id, "name": player.name, "roles": player.roles}
    if private:
        data |= {
            "emails": [email.address for email in player.emails],
            "forwarded_addresses": [e.address for e in player.emails if not e.sender_checks],
            "time_zone": player.time_zone,
            "notify": player.notify,
            "own_copy": player.own_copy,
            "board_flip": player.board_flip,
            "board_text": player.board_text,
            "language": player.language,
            "send_delay_minutes": player.send_delay_minutes,
            "vacation_days_per_year": player.vacation_days_per_year,
            "vacation_days_left": vacation_days_left(player, utcnow()),
            "vacations": [
                {"starts": v.starts.isoformat(), "ends": v.ends.isoformat(), "days": v.days}
                for v in player.vacations
            ],
        }
    return data


def vacation_days_left(player: Player, now: datetime) -> float:
    taken = sum(v.days for v in player.vacations if v.starts.year == now.year)
    return max(0.0, player.vacation_days_per_year - taken)


def take_vacation(session: Session, player: Player, days: Any, now: datetime | None = None) -> None:
    """Leave from now for ``days``: clocks stop, deadlines move back, everybody is told."""
    from service import games

    now = now or utcnow()
    if isinstance(days, bool) or not isinstance(days, int | float) or days <= 0:
        raise BadRequest(N_("days must be a positive number"))
    # The lock order (see service/games/__init__.py): every game first, in id order, then
    # the player.
    seated = select(Game.id).join(Seat).where(Seat.player_id == player.id)
    ids = session.scalars(seated.where(Game.status == GameStatus.ACTIVE).order_by(Game.id)).all()
    active = [games.lock(session, game_id) for game_id in ids]
    _lock(session, player)
    left = vacation_days_left(player, now)
    if days > left:
        raise Conflict(
            N_("only %(left)s vacation days are left this year; asked for %(days)s"),
            values={"left": f"{left:g}", "days": f"{days:g}"},
        )
    ends = now + timedelta(days=days)
    session.add(Vacation(player_id=player.id, starts=now, ends=ends, days=float(days)))
    for game in active:
        if game.status != GameStatus.ACTIVE:
            continue
        games.push_deadline(session, game, player, ends, now)
        for seat in game.seats:
            notify.vacation(session, game, seat.player, player, ends)
    session.flush()


def _lock(session: Session, player: Player) -> None:
    """The player's row, locked, with their vacations read afresh (two requests at once
    must not spend the same days twice)."""
    query = select(Player.id).where(Player.id == player.id).with_for_update(key_share=True)
    session.execute(query)
    session.expire(player, ["vacations"])


VACATION_ON_DAYS = 7
"""How long ``vacation on`` (by mail) lasts when the player names no length."""


def current_vacation(player: Player, now: datetime) -> Vacation | None:
    return next((v for v in player.vacations if v.starts <= now < v.ends), None)


def start_vacation(session: Session, player: Player, now: datetime | None = None) -> datetime:
    """``vacation on``: leave for ``VACATION_ON_DAYS`` (or the days left); returns the end."""
    now = now or utcnow()
    away = current_vacation(player, now)
    if away is not None:
        raise Conflict(
            N_("you are already on vacation until %(ends)s UTC"),
            values={"ends": f"{away.ends:%Y-%m-%d %H:%M}"},
        )
    days = min(float(VACATION_ON_DAYS), vacation_days_left(player, now))
    if days <= 0:
        raise Conflict(N_("no vacation days are left this year"))
    take_vacation(session, player, days, now)
    return now + timedelta(days=days)


def end_vacation(session: Session, player: Player, now: datetime | None = None) -> None:
    """``vacation off``: back now; the unused days return. Deadlines already moved stay moved
    (nobody loses time they were promised)."""
    now = now or utcnow()
    away = current_vacation(player, now)
    if away is None:
        raise Conflict(N_("you are not on vacation"))
    away.ends = now
    away.days = round((now - away.starts).total_seconds() / 86400, 4)
    session.flush()


SEARCH_MAX = 200
"""The longest search text: longer than any name (80) or address (254) part worth typing."""
PAGE_DEFAULT, PAGE_MAX = 50, 200


def directory(
    session: Session,
    viewer: Player | None,
    search: str = "",
    limit: int = PAGE_DEFAULT,
    offset: int = 0,
) -> dict[str, Any]:
    """Players whose name or an address contains ``search`` (any case), in id order (a page
    read later starts where the last one ended, whoever joined since), with their addresses
    and game counts: directors only (``viewer`` None: the command line)."""
    if viewer is not None and not viewer.has_role("td", "admin"):
        raise Forbidden(N_("only tournament directors and admins list players"))
    _check_page(search, limit, offset)
    query = select(Player)
    if search.strip():
        needle = search.strip().lower()
        query = query.where(
            func.lower(Player.name).contains(needle, autoescape=True)
            | Player.emails.any(Email.address.contains(needle, autoescape=True))
        )
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    page = session.scalars(
        query.options(selectinload(Player.emails)).order_by(Player.id).limit(limit).offset(offset)
    ).all()
    counts = _game_counts(session, [player.id for player in page])
    items = [
        {
            "id": player.id,
            "name": player.name,
            "roles": player.roles,
            "emails": [email.address for email in player.emails],
            "games": counts.get(player.id, (0, 0))[0],
            "active_games": counts.get(player.id, (0, 0))[1],
            "created_at": player.created_at.isoformat(),
        }
        for player in page
    ]
    following = offset + len(page)
    return {
        "players": items,
        "total": total,
        "limit": limit,
        "offset": offset,
        "next_offset": following if following < total else None,
    }


def _check_page(search: str, limit: int, offset: int) -> None:
    if len(search) > SEARCH_MAX or "\x00" in search:
        raise BadRequest(
            N_("q %(start)s... is not a search text: at most %(most)s characters, no NUL"),
            values={"start": repr(search[:40]), "most": SEARCH_MAX},
        )
    if not 1 <= limit <= PAGE_MAX:
        raise BadRequest(
            N_("limit %(limit)s is out of range: give 1 to %(most)s players a page"),
            values={"limit": limit, "most": PAGE_MAX},
        )
    if not 0 <= offset <= 2**31 - 1:
        raise BadRequest(
            N_("offset %(offset)s is out of range: give 0 or more players to skip"),
            values={"offset": offset},
        )


def _game_counts(session: Session, ids: list[int]) -> dict[int, tuple[int, int]]:
    """Per player of ``ids``: (games seated in, of them active), in one query."""
    if not ids:
        return {}
    active = func.count(func.distinct(case((Game.status == GameStatus.ACTIVE, Game.id))))
    rows = session.execute(
        select(Seat.player_id, func.count(func.distinct(Game.id)), active)
        .join(Game, Game.id == Seat.game_id)
        .where(Seat.player_id.in_(ids))
        .group_by(Seat.player_id)
    )
    return {player_id: (int(total), int(running)) for player_id, total, running in rows}


def count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Player)) or 0
