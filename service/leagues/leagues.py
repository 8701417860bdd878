"""Leagues: creating one, entries (invitations, join codes), rounds, and recording results.

A round starts when the previous one is complete (every game decided or voided) and its
scheduled time, if the league has ``round_days``, has come; the format then pairs it (or says
the league is over). Byes, sit-outs and games of a withdrawn player are settled at once;
every other pairing creates its game, which mails the players. When a game ends,
:func:`game_finished` (called from ``service.games.consequences``) rates it, records the
league result and queues ``Task.LEAGUE_ADVANCE``, which locks the league row and re-checks
everything, so a doubled task or two games ending at once start the next round once. The beat
sweep queues the same task for leagues due to start or advance.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from engine import EngineError, Outcome
from service import clock, games, i18n, players, reliability, webhooks
from service.db import enqueue
from service.errors import BadRequest, Conflict, Forbidden, NotFound, Written, from_engine
from service.i18n import N_
from service.leagues import mail, ownership, ratings
from service.leagues import standings as table
from service.leagues.models import Entry, League, Pairing, Round
from service.leagues.refusals import refused
from service.models import Email, Game, Player, utcnow
from service.tasks import Task
from service.tournament import core
from service.tournament.standings import Tiebreak
from service.tournament.swiss import PairingImpossible
from service.tournament.tables import Table

OPEN, RUNNING, FINISHED = "open", "running", "finished"
SCORING_FIELDS = ("win", "draw", "loss", "bye", "forfeit_loss")
FORFEIT_BY = {"time": "time", "forfeit": "missed_turns", "withdrawal": "withdrawal"}
WITHDRAWAL_RULES = ("forfeit", "expunge")


# -- reading ------------------------------------------------------------------------------


def lock(session: Session, league_id: int) -> League:
    query = (
        select(League)
        .where(League.id == league_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    league = session.scalar(query)
    if league is None:
        raise refused(NotFound, N_("there is no league %(id)s"), id=league_id)
    return league


def get(session: Session, league_id: int) -> League:
    league = session.get(League, league_id)
    if league is None:
        raise refused(NotFound, N_("there is no league %(id)s"), id=league_id)
    return league


require_director = ownership.require_director


def rating_key(league: League) -> tuple[str, str]:
    return ratings.key_of(league.game, league.options), ratings.system_of(league.seats)


# -- creating -----------------------------------------------------------------------------


def create(
    session: Session, actor: Player | None, data: Mapping[str, Any], now: datetime | None = None
) -> League:
    """A new league, open for entries. See README "Running a league" for every field."""
    require_director(actor)
    known = {
        "name", "game", "options", "players", "time_control", "format", "rounds",
        "draw_rule", "scoring", "tiebreaks", "starts_at", "round_days", "withdrawal",
        "join_code", "position", "min_reliability", "max_forfeits",
        "invitation_days", "max_game_days",
    }  # fmt: skip
    unknown = sorted(set(data) - known)
    if unknown:
        raise refused(
            BadRequest,
            N_("a league has no field %(unknown)s; fields are %(known)s"),
            unknown=", ".join(unknown),
            known=", ".join(sorted(known)),
        )
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        raise refused(BadRequest, N_("name must be a non-empty text of at most 80 characters"))
    form = data.get("format", "round_robin")
    if form not in table.FORMATS:
        raise refused(
            BadRequest,
            N_("format must be one of %(choices)s; got %(given)s"),
            choices=", ".join(table.FORMATS),
            given=repr(form),
        )
    seats = _seats(form, data.get("players"))
    rules = _rules(data.get("game"), data.get("options"), seats)
    settings: dict[str, Any] = {
        "withdrawal": _choice(data.get("withdrawal", "forfeit"), WITHDRAWAL_RULES, "withdrawal"),
        "round_days": _days(data.get("round_days")),
        "invitation_days": whole_days(
            data.get("invitation_days", INVITATION_DAYS), "invitation_days"
        ),
    }
    settings |= _minimum(data)
    if data.get("max_game_days") is not None:
        settings["max_game_days"] = whole_days(data["max_game_days"], "max_game_days")
    if form in ("swiss", "tables"):
        settings["rounds"] = _whole(data.get("rounds"), "rounds", 1, 99)
    if data.get("position") is not None:
        settings["position"] = _position(rules, seats, data["position"])
    if form == "knockout":
        rules_ = ("replay", "higher_seed", "second_seat")
        settings["draw_rule"] = _choice(data.get("draw_rule", "replay"), rules_, "draw_rule")
    league = League(
        name=name.strip(),
        game=rules.name,
        options=dict(rules.options),
        seats=seats,
        time_control=clock.normalise(data.get("time_control")),
        format=form,
        settings=settings,
        scoring=_scoring(data.get("scoring")),
        tiebreaks=_tiebreaks(form, data.get("tiebreaks")),
        status=OPEN,
        paused=False,
        starts_at=_when(data.get("starts_at"), "starts_at"),
        join_code=_join_code(data.get("join_code")),
        round=0,
        created_by=actor.id if actor else None,
        created_at=now or utcnow(),
    )
    session.add(league)
    session.flush()
    return league


def _seats(form: str, given: Any) -> int:
    if form != "tables":
        if given not in (None, 2):
            raise refused(
                BadRequest,
                N_("format %(format)s pairs two players a game; use 'tables' for 3 or 4"),
                format=form,
            )
        return 2
    return 4 if given is None else _whole(given, "players", 3, 4)


def _rules(name: Any, options: Any, seats: int) -> engine.Game:
    if not isinstance(name, str):
        raise refused(
            BadRequest,
            N_("game must be the name of a game, one of %(games)s"),
            games=", ".join(engine.names()),
        )
    if options is not None and not isinstance(options, dict):
        raise refused(BadRequest, N_("options must be an object of option names to values"))
    try:
        rules = engine.new_game(name, {str(k): str(v) for k, v in (options or {}).items()})
        counts = engine.game_class(name).player_counts
    except EngineError as error:
        raise from_engine(error) from error
    needed = [2] if seats == 2 else [3, 4]
    missing = [n for n in needed if n not in counts]
    if missing:
        raise refused(
            BadRequest,
            N_("%(game)s is played by %(counts)s players, not %(missing)s"),
            game=rules.title,
            counts=", ".join(map(str, counts)),
            missing=" or ".join(map(str, missing)),
        )
    return rules


def _position(rules: engine.Game, seats: int, given: Any) -> str:
    """A start position for every game of the league, as the engine reads it."""
    if seats != rules.players:
        rules = engine.new_game(rules.name, dict(rules.options), seats)
    return games.read_start_position(rules, given).position()


def _minimum(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a player's last twelve months must show to join (``service.reliability``):
    ``min_reliability``, a percent of moves on time, and ``max_forfeits``, games lost by
    forfeit; each only when given."""
    minimum: dict[str, Any] = {}
    least = data.get("min_reliability")
    if least is not None:
        number = isinstance(least, int | float) and not isinstance(least, bool)
        if not number or not 0 <= least <= 100:
            raise refused(
                BadRequest,
                N_("min_reliability must be a percent of moves on time, 0 to 100; got %(given)s"),
                given=repr(least),
            )
        minimum["min_reliability"] = least
    if data.get("max_forfeits") is not None:
        minimum["max_forfeits"] = _whole(data["max_forfeits"], "max_forfeits", 0, 99)
    return minimum


def _choice(value: Any, choices: Sequence[str], name: str) -> str:
    if value not in choices:
        raise refused(
            BadRequest,
            N_("%(name)s must be one of %(choices)s; got %(given)s"),
            name=name,
            choices=", ".join(choices),
            given=repr(value),
        )
    return str(value)


def _whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise refused(
            BadRequest,
            N_("%(name)s must be a whole number from %(low)s to %(high)s; got %(given)s"),
            name=name,
            low=low,
            high=high,
            given=repr(value),
        )
    return value


def _days(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 365:
        raise refused(
            BadRequest,
            N_("round_days must be a number of days from 0 to 365; got %(given)s"),
            given=repr(value),
        )
    return float(value)


INVITATION_DAYS = 14
"""Days an invitation to a league stays open unless the league says otherwise (issue 25.6)."""


def whole_days(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 365:
        raise refused(
            BadRequest,
            N_("%(field)s must be a whole number of days from 1 to 365; got %(given)s"),
            field=field,
            given=repr(value),
        )
    return value


def invitation_expires(league: League, entry: Entry) -> datetime:
    """When ``entry``'s invitation to ``league`` lapses (from its last invitation)."""
    days = league.settings.get("invitation_days", INVITATION_DAYS)
    return entry.joined_at + timedelta(days=days)


def _scoring(given: Any) -> dict[str, float]:
    scoring = {"win": 1.0, "draw": 0.5, "loss": 0.0, "bye": 1.0, "forfeit_loss": 0.0}
    if given is None:
        return scoring
    if not isinstance(given, dict):
        raise refused(
            BadRequest,
            N_("scoring must be an object: %(fields)s"),
            fields=", ".join(SCORING_FIELDS),
        )
    for key, value in given.items():
        if key not in SCORING_FIELDS:
            raise refused(
                BadRequest,
                N_("scoring has no field %(key)s; fields are %(fields)s"),
                key=repr(key),
                fields=", ".join(SCORING_FIELDS),
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or abs(value) > 100:
            raise refused(
                BadRequest,
                N_("scoring.%(key)s must be a number from -100 to 100; got %(given)s"),
                key=key,
                given=repr(value),
            )
        scoring[key] = float(value)
    if "loss" in given and "forfeit_loss" not in given:
        scoring["forfeit_loss"] = scoring["loss"]
    return scoring


def _tiebreaks(form: str, given: Any) -> list[str]:
    if given is None:
        return [t.value for t in table.DEFAULT_TIEBREAKS[form]]
    names = [t.value for t in Tiebreak]
    if not isinstance(given, list) or not all(t in names for t in given):
        raise refused(
            BadRequest, N_("tiebreaks must be a list drawn from %(names)s"), names=", ".join(names)
        )
    if form == "tables" and set(given) - {"wins"}:
        raise refused(BadRequest, N_("multiplayer tables break ties by wins (first places) only"))
    return list(dict.fromkeys(given))


def _when(value: Any, name: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise refused(
            BadRequest,
            N_("%(name)s must be an ISO 8601 date and time, e.g. 2030-01-31T12:00:00Z"),
            name=name,
        )
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as error:
        raise refused(
            BadRequest,
            N_("cannot read %(name)s %(given)s: use ISO 8601"),
            name=name,
            given=repr(value),
        ) from error
    if when.tzinfo is None:
        raise refused(
            BadRequest, N_("%(name)s needs a time zone, e.g. 2030-01-31T12:00:00Z"), name=name
        )
    return when


def _join_code(value: Any) -> str | None:
    if value is None or value is False:
        return None
    if value is True:
        return secrets.token_urlsafe(6)
    if not isinstance(value, str) or not 4 <= len(value.strip()) <= 40:
        raise refused(
            BadRequest,
            N_("join_code must be true (make one up) or a text of 4 to 40 characters"),
        )
    return value.strip()


# -- entries ------------------------------------------------------------------------------


def invite(
    session: Session, league_id: int, actor: Player | None, data: Mapping[str, Any]
) -> list[Entry]:
    """``{"players": [{"email", "name"?} or "email" or player id, ...]}``: each is invited and
    mailed; an address nobody has yet becomes a new player with that address."""
    ownership.check_league(session, actor, league_id)
    league = lock(session, league_id)
    _check_open(league)
    wanted = data.get("players")
    if not isinstance(wanted, list) or not wanted:
        raise refused(
            BadRequest,
            N_("players must be a list of e-mail addresses, {email, name} or player ids"),
        )
    invited = []
    for item in wanted:
        player = _player_for(session, actor, item)
        entry = _entry(league, player)
        if entry is not None:
            if entry.status in ("invited", "active"):
                continue
            entry.status, entry.joined_at = "invited", utcnow()
        else:
            entry = Entry(league_id=league.id, player_id=player.id, status="invited")
            league.entries.append(entry)
        session.flush()
        mail.invitation(session, league, entry, actor, invitation_expires(league, entry))
        invited.append(entry)
    return invited


def _player_for(session: Session, actor: Player | None, item: Any) -> Player:
    if isinstance(item, int) and not isinstance(item, bool):
        return players.get(session, item)
    if isinstance(item, str):
        item = {"email": item}
    if not isinstance(item, dict) or not isinstance(item.get("email"), str):
        raise refused(
            BadRequest,
            N_("cannot read player %(given)s: give an e-mail address or a player id"),
            given=repr(item),
        )
    address = item["email"].strip().lower()
    found = session.scalar(select(Email).where(Email.address == address))
    if found is not None:
        return found.player
    name = item.get("name") or address.split("@")[0][:80]
    player, _ = players.create(session, actor, {"name": name, "emails": [address]})
    return player


def _entry(league: League, player: Player) -> Entry | None:
    return next((e for e in league.entries if e.player_id == player.id), None)


def _check_open(league: League) -> None:
    if league.status != OPEN:
        raise refused(
            Conflict,
            N_("league %(id)s has started; entries are closed"),
            "league_started",
            id=league.id,
        )


def join(session: Session, league_id: int, player: Player, code: Any) -> Entry:
    """Enter an open league with its join code."""
    league = lock(session, league_id)
    _check_open(league)
    if league.join_code is None:
        raise refused(Forbidden, N_("league %(id)s takes invited players only"), id=league.id)
    given = code.strip().encode("utf-8", "surrogatepass") if isinstance(code, str) else b""
    if not secrets.compare_digest(given, league.join_code.encode()):
        raise refused(Forbidden, N_("that join code does not fit this league"))
    entry = _entry(league, player)
    if entry is None or entry.status != "active":
        reliability.check_minimum(session, league, player)
    if entry is None:
        entry = Entry(league_id=league.id, player_id=player.id)
        league.entries.append(entry)
    entry.status, entry.answered_at = "active", utcnow()
    session.flush()
    return entry


def answer(session: Session, league_id: int, player: Player, accept: bool) -> Entry:
    """Accept or decline an invitation (from the API, or a reply to the invitation mail)."""
    league = lock(session, league_id)
    entry = _entry(league, player)
    no_invitation = refused(
        Conflict,
        N_("%(name)s has no invitation to league %(id)s"),
        "no_invitation",
        name=player.name,
        id=league.id,
    )
    if entry is None:
        raise no_invitation
    _check_open(league)  # before the entry's status: an invitation that lapsed at the start
    if entry.status == "expired" or (
        entry.status == "invited" and invitation_expires(league, entry) <= utcnow()
    ):
        raise refused(
            Conflict,
            N_(
                "the invitation of %(name)s to league %(id)s expired on %(when)s; ask the "
                "league's director to invite you again"
            ),
            "invitation_expired",
            name=player.name,
            id=league.id,
            when=_moment(invitation_expires(league, entry), player.time_zone),
        )
    if entry.status not in ("invited", "active", "declined"):
        raise no_invitation
    if accept and entry.status != "active":
        reliability.check_minimum(session, league, player)
    entry.status, entry.answered_at = ("active" if accept else "declined"), utcnow()
    return entry


def _moment(moment: datetime, zone: str | None) -> Written:
    """``moment`` in a refusal: in English as always (``2030-01-31 12:00 UTC``), in another
    language as its mails write a deadline, in the player's time zone."""

    def write(locale: str) -> str:
        if locale == i18n.DEFAULT:
            return moment.strftime("%Y-%m-%d %H:%M UTC")
        return i18n.format_moment(moment, locale, zone)

    return Written(write)


def open_invitations(session: Session, player: Player) -> list[League]:
    """Leagues still open that invited ``player`` (a reply 'accept' without a league id)."""
    query = (
        select(League)
        .join(Entry, Entry.league_id == League.id)
        .where(Entry.player_id == player.id, Entry.status == "invited", League.status == OPEN)
        .order_by(League.id)
    )
    return list(session.scalars(query))


# -- rounds -------------------------------------------------------------------------------


def start(
    session: Session, league_id: int, actor: Player | None, now: datetime | None = None
) -> League:
    """Start now: unanswered invitations lapse, entries are seeded by rating, round 1 begins."""
    ownership.check_league(session, actor, league_id)
    league = lock(session, league_id)
    _check_open(league)
    _start(session, league, now or utcnow())
    return league


def _start(session: Session, league: League, now: datetime) -> None:
    accepted = [e for e in league.entries if e.status == "active"]
    needed = 3 if league.format == "tables" else 2
    if len(accepted) < needed:
        raise refused(
            Conflict,
            N_("league %(id)s needs at least %(needed)s players who accepted; it has %(count)s"),
            "too_few_players",
            id=league.id,
            needed=needed,
            count=len(accepted),
        )
    for entry in league.entries:
        if entry.status == "invited":
            entry.status = "expired"
    key, system = rating_key(league)
    rated = ratings.for_players(session, [e.player_id for e in accepted], key, system)
    order = sorted(accepted, key=lambda e: (-rated.get(e.player_id, {}).get("rating", 0.0), e.id))
    for seed, entry in enumerate(order, 1):
        entry.seed = seed
    league.status = RUNNING
    league.starts_at = league.starts_at or now
    session.flush()
    _next_round(session, league, now)


def advance(session: Session, league_id: int, now: datetime | None = None) -> bool:
    """The task body: start a league whose start time came, or its next round when the
    current one is complete and due. Returns whether anything changed."""
    now = now or utcnow()
    league = lock(session, league_id)
    if league.paused or league.status == FINISHED:
        return False
    if league.status == OPEN:
        if league.starts_at is None or league.starts_at > now:
            return False
        try:
            _start(session, league, now)
        except Conflict:
            return False
        return True
    rows = table.pairings_of(session, league)
    current = [row for row in rows if row.round == league.round]
    if any(row.status == "playing" for row in current):
        return False
    due = _round_due(league, now)
    finished = _close_round(session, league, now, None if due else _next_round_at(league))
    if not due:
        return finished
    _next_round(session, league, now)
    return True


def _close_round(
    session: Session, league: League, now: datetime, next_round_at: datetime | None
) -> bool:
    """Mark the current round finished and mail the standings, once; ``next_round_at``: when
    the next round starts, None when it starts now (the mail says which: issue 21, point 4)."""
    row = session.scalar(
        select(Round).where(Round.league_id == league.id, Round.number == league.round)
    )
    if row is None or row.finished_at is not None:
        return False
    row.finished_at = now
    standings = standings_json(session, league)
    mail.standings(session, league, row.number, standings, next_round_at=next_round_at)
    webhooks.standings(session, league, row.number, standings)
    return True


def _next_round_at(league: League) -> datetime | None:
    """When the next round is due by the league's schedule (None: as soon as this one ends)."""
    days = league.settings.get("round_days")
    if not days or league.starts_at is None:
        return None
    return league.starts_at + timedelta(days=days * league.round)


def _round_due(league: League, now: datetime) -> bool:
    due = _next_round_at(league)
    return due is None or due <= now


def _next_round(session: Session, league: League, now: datetime) -> None:
    rows = table.pairings_of(session, league)
    entrants = [table.entrant(e.id) for e in table.seeded_entries(league)]
    gone = table.withdrawn(league)
    form = table.pairing_format(league)
    try:
        pairings = form.next_round(entrants, table.results(league, rows), gone)
    except PairingImpossible:
        pairings = None
    if pairings is None:
        _finish_league(session, league, now)
        return
    league.round += 1
    session.add(Round(league_id=league.id, number=league.round, started_at=now))
    if league.format == "tables":
        _start_tables(session, league, pairings, now)
    else:
        _start_pairings(session, league, pairings, gone, now)
    session.flush()
    enqueue(session, Task.LEAGUE_ADVANCE, league.id)


def _start_pairings(
    session: Session,
    league: League,
    pairings: Sequence[core.Pairing],
    gone: set[str],
    now: datetime,
) -> None:
    pairings = [replace(p, round=league.round) for p in pairings]
    automatic = {r.pairing: r for r in core.automatic_results(pairings, gone)}
    for pairing in pairings:
        entries = [int(p) for p in pairing.players]
        row = Pairing(league_id=league.id, round=league.round, board=pairing.board, entries=entries)
        session.add(row)
        result = automatic.get(pairing)
        if result is not None:
            row.status, row.decided_at = "done", now
            row.places = _places(result)
            loser = result.loser
            row.forfeits = [
                result.forfeit.value if result.forfeit and p == loser else None
                for p in pairing.players
            ]
            continue
        _start_game(session, league, row, now)


def _places(result: core.Result) -> list[int]:
    if result.pairing.is_bye:
        return [1]
    if result.outcome is core.Outcome.DRAW:
        return [1, 1]
    return [1, 2] if result.winner == result.pairing.first else [2, 1]


def _start_tables(session: Session, league: League, tables: Sequence[Table], now: datetime) -> None:
    for number, seated in enumerate(tables, 1):
        row = Pairing(
            league_id=league.id,
            round=league.round,
            board=number,
            entries=[int(p) for p in seated.players],
        )
        session.add(row)
        if seated.is_sit_out:
            row.status, row.places, row.forfeits, row.decided_at = "done", [1], [None], now
            continue
        _start_game(session, league, row, now)


def _start_game(session: Session, league: League, row: Pairing, now: datetime) -> None:
    from service import games

    entries = {e.id: e for e in league.entries}
    seats = [entries[e].player_id for e in row.entries]
    creator = session.get(Player, league.created_by) if league.created_by else None
    actor = (
        creator if creator and creator.has_role("td", "admin") else entries[row.entries[0]].player
    )
    data = {
        "game": league.game,
        "options": league.options,
        "seats": seats,
        "time_control": league.time_control,
        "position": league.settings.get("position"),
    }

    def link(game: Game) -> None:  # before the game's first mail, which names the round
        row.game_id, row.status = game.id, "playing"
        session.flush()

    games.create(session, actor, data, now, position_allowed=True, created=link)


def _finish_league(session: Session, league: League, now: datetime) -> None:
    league.status, league.finished_at = FINISHED, now
    document = standings_json(session, league)
    mail.standings(session, league, league.round, document, final=True)
    webhooks.standings(session, league, league.round, document, final=True)


# -- when a game ends (service.games.consequences) ----------------------------------------


def game_finished(session: Session, game: Game, outcome: Outcome, by: str, now: datetime) -> None:
    """Called (by ``service.games.consequences``) in the transaction that ends a game: rate it,
    record its league result, and queue the league's next step."""
    kind = FORFEIT_BY.get(by)
    if kind != "withdrawal":
        ratings.rate_game(session, game, outcome.places, now)
    row = session.scalar(select(Pairing).where(Pairing.game_id == game.id))
    if row is None or row.status != "playing":
        return
    record_result(row, list(outcome.places), kind, now)
    enqueue(session, Task.LEAGUE_ADVANCE, row.league_id)


def record_result(row: Pairing, places: list[int], kind: str | None, now: datetime) -> None:
    """Places per seat; a forfeit marks the seat that finished last alone."""
    last = max(places)
    losers = [seat for seat, place in enumerate(places) if place == last]
    row.places = places
    row.forfeits = [
        kind if kind and seat in losers and len(losers) == 1 else None
        for seat in range(len(places))
    ]
    row.status, row.decided_at = "done", now


def expire_invitations(session: Session, now: datetime) -> int:
    """Unanswered invitations to open leagues past their ``invitation_days`` lapse: the seat
    is freed and the player told (issue 25 point 6). Idempotent: a lapsed entry is no longer
    ``invited``, so a second sweep finds nothing."""
    candidates = session.execute(
        select(Entry.league_id, Entry.joined_at, League.settings)
        .join(League, League.id == Entry.league_id)
        .where(Entry.status == "invited", League.status == OPEN)
    ).all()
    due = {
        row.league_id
        for row in candidates
        if row.joined_at + timedelta(days=row.settings.get("invitation_days", INVITATION_DAYS))
        <= now
    }  # only those leagues are locked
    expired = 0
    for league_id in sorted(due):
        league = lock(session, league_id)
        if league.status != OPEN:
            continue
        for entry in league.entries:
            if entry.status == "invited" and invitation_expires(league, entry) <= now:
                entry.status, entry.answered_at = "expired", now
                mail.expired(session, league, entry, invitation_expires(league, entry))
                expired += 1
    session.flush()
    return expired


def cap_games(session: Session, now: datetime) -> int:
    """Games of running leagues older than the league's ``max_game_days`` end now, decided by
    the engine (``State.adjudicate_at_cap``: the rule book's score, else a draw) through the
    games' write path, so the league, chain and mails take the end as any other. Idempotent:
    an ended game is no longer ``playing``."""
    rows = session.execute(
        select(Pairing.game_id, League.settings, Game.created_at)
        .join(League, League.id == Pairing.league_id)
        .join(Game, Game.id == Pairing.game_id)
        .where(
            League.status == RUNNING,
            League.paused.is_(False),
            Pairing.status == "playing",
            Game.status == "active",
        )
    ).all()
    ended = 0
    for row in rows:
        days = (row.settings or {}).get("max_game_days")
        if not days or row.created_at + timedelta(days=days) > now:
            continue
        aggregate = games.load(session, row.game_id)
        events = aggregate.adjudicate_at_cap(now)
        if events:
            games.apply(session, aggregate, events, now)
            ended += 1
    return ended


def due(session: Session, now: datetime) -> list[int]:
    """Leagues the sweep should look at: open ones whose start came, running ones with no
    game in play in their current round."""
    starting = select(League.id).where(
        League.status == OPEN, League.paused.is_(False), League.starts_at <= now
    )
    running = select(League).where(League.status == RUNNING, League.paused.is_(False))
    found = list(session.scalars(starting))
    for league in session.scalars(running):
        playing = session.scalar(
            select(Pairing.id).where(
                Pairing.league_id == league.id,
                Pairing.round == league.round,
                Pairing.status == "playing",
            )
        )
        if playing is None:
            found.append(league.id)
    return found


# -- output -------------------------------------------------------------------------------


def summary(league: League) -> dict[str, Any]:
    return {
        "id": league.id,
        "name": league.name,
        "game": league.game,
        "options": league.options,
        "players_per_game": league.seats,
        "format": league.format,
        "status": league.status,
        "paused": league.paused,
        "round": league.round,
        "starts_at": league.starts_at.isoformat() if league.starts_at else None,
        "entries": sum(e.status in ("active", "withdrawn") for e in league.entries),
    }


def to_json(session: Session, league: League, viewer: Player | None) -> dict[str, Any]:
    """Everything public about a league; the join code only for its directors."""
    director = viewer is not None and ownership.directs(session, viewer, league)
    rows = table.pairings_of(session, league)
    entries = {e.id: e for e in league.entries}
    return {
        **summary(league),
        "time_control": league.time_control,
        "settings": league.settings,
        "scoring": league.scoring,
        "tiebreaks": league.tiebreaks,
        "join_code": league.join_code if director else None,
        "directors": ownership.to_json(session, league),
        "open_to_join": league.join_code is not None and league.status == OPEN,
        "players": [
            {
                "entry": e.id,
                "id": e.player_id,
                "name": e.player.name,
                "status": e.status,
                "seed": e.seed,
            }
            for e in league.entries
        ],
        "rounds": [
            {
                "round": number,
                "games": [
                    {
                        "board": row.board,
                        "game": row.game_id,
                        "players": [entries[e].player.name for e in row.entries],
                        "status": row.status,
                        "places": row.places,
                        "forfeits": row.forfeits,
                    }
                    for row in rows
                    if row.round == number
                ],
            }
            for number in range(1, league.round + 1)
        ],
    }


def list_all(session: Session) -> list[dict[str, Any]]:
    return [summary(league) for league in session.scalars(select(League).order_by(League.id))]


def standings_json(session: Session, league: League) -> dict[str, Any]:
    key, system = rating_key(league)
    ids = [e.player_id for e in league.entries]
    return table.to_json(session, league, ratings.for_players(session, ids, key, system))
