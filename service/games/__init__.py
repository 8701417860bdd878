"""Games: the one place where the engine meets the database (a package since issue 23).

``aggregate.LockedGame`` is a locked game and the only writer of its rows; its methods return
typed events (``events``), which ``consequences`` hands to the chain, mail, leagues and
conditional moves. ``stepping`` steps the engine state, for live play and for the replay of a
record (``records.replay``) alike. ``queries`` holds the read-only views. The functions here
are the public API: each loads the aggregate, calls one method and hands off its events.

Every change locks the game row first (``SELECT ... FOR UPDATE``; SQLite serialises whole
transactions), re-reads it and checks the turn, so a retried or doubled request or task
changes nothing twice. Everything shown to a player comes from ``state.view(seat)``; a
spectator gets ``state.view(None)``; sealed orders leave the database only for their author
until the turn resolves.

Lock order (PostgreSQL; SQLite serialises whole transactions). A transaction that locks
several rows takes them in this order, so no two can wait on each other in a circle:

1. the inbound mail row being processed (``mail.gateway.process``);
2. leagues, in id order (``leagues.lock``: a director's action on a league, a round);
3. games, in id order (:func:`lock`, :func:`load`; a player's vacation locks all their games first);
4. players, in id order (``ratings._lock_players`` when a game ends; ``players.take_vacation``).

Rows are locked ``FOR NO KEY UPDATE``: they exclude each other but not the key-share locks
PostgreSQL takes on a row when another row referring to it is inserted (an outbox row for a
player, an order for a game), which would otherwise deadlock two games ending at once.
Whatever still collides (a deadlock or a serialization failure) is run again whole by
``db.retrying`` (every API request, every task, and so the mail gateway).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

import engine
from engine import EngineError, Event, Outcome, State
from service import clock, notify
from service.errors import BadRequest, Conflict, Forbidden, NotFound, from_engine
from service.games.aggregate import (
    LockedGame,
    current_turn,
    dice,
    game_over,
    has_dice,
    keep_turn,
    lock_row,
    public_result,
    result_text,
    seat_of,
    state_of,
)
from service.games.consequences import RESOLVE_TASK, hand_off
from service.games.events import GameEvent
from service.games.queries import (
    ACTIVE,
    FINISHED,
    MAX_LISTED,
    REMINDER_LEAD,
    SEALED_ACTIVITY,
    ActionReader,
    action_reader,
    catalog,
    due_turns,
    get,
    history,
    legal_texts,
    list_for,
    opened_well_before,
    preview,
    previewed,
    read_action,
    record,
    reminders_due,
    sealed_order,
    summary,
    text_record,
    to_json,
)
from service.games.stepping import roll_due
from service.i18n import N_
from service.models import APPLIED, Game, Player, Seat, utcnow

__all__ = [
    "ACTIVE",
    "APPLIED",
    "FINISHED",
    "MAX_LISTED",
    "REMINDER_LEAD",
    "RESOLVE_TASK",
    "SEALED_ACTIVITY",
    "ActionReader",
    "GameEvent",
    "LockedGame",
    "action_reader",
    "answer",
    "catalog",
    "create",
    "current_turn",
    "dice",
    "draw",
    "due_turns",
    "finish",
    "game_over",
    "get",
    "has_dice",
    "history",
    "legal_texts",
    "list_for",
    "load",
    "lock",
    "opened_well_before",
    "preview",
    "previewed",
    "public_result",
    "push_deadline",
    "read_action",
    "read_start_position",
    "record",
    "remind",
    "reminders_due",
    "resign",
    "resolve_turn",
    "result_text",
    "roll_due",
    "sealed_order",
    "seat_of",
    "set_deadline",
    "state_of",
    "submit",
    "summary",
    "takeback",
    "text_record",
    "to_json",
    "wait_for_deadline",
    "withdraw",
]


def lock(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction and freshly read, with its seated players."""
    return lock_row(session, game_id)


def load(session: Session, game_id: int) -> LockedGame:
    """The game locked for this transaction, as the one object that may change it."""
    return LockedGame.load(session, game_id)


def apply(
    session: Session, aggregate: LockedGame, events: Sequence[GameEvent], now: datetime
) -> Game:
    """Hand what the aggregate did to its consumers (chain, mail, leagues, conditional moves)."""
    keep_turn(session, aggregate.turn)  # the turn it opened, which the mails show
    hand_off(session, aggregate.game, events, now)
    return aggregate.game


# -- creating -----------------------------------------------------------------------------


def create(
    session: Session,
    actor: Player,
    data: Mapping[str, Any],
    now: datetime | None = None,
    *,
    position_allowed: bool = False,
    created: Callable[[Game], None] | None = None,
) -> Game:
    """A new game: ``{"game", "options", "seats": [player ids in seat order], "time_control",
    "position"?}``; a start ``position`` (directors and admins, or ``position_allowed`` for a
    league's own) is checked by the engine and kept in the log and the record. ``created``
    is called with the new row before its first mail is written (a league links its pairing
    there, so that mail names the league and round)."""
    now = now or utcnow()
    name = data.get("game")
    if not isinstance(name, str):
        raise BadRequest(
            N_("game must be the name of a game, one of %(names)s"),
            values={"names": ", ".join(engine.names())},
        )
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest(N_("options must be an object of option names to values"))
    seat_ids = data.get("seats")
    if not isinstance(seat_ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 1 <= i < 2**31 for i in seat_ids
    ):
        raise BadRequest(N_("seats must be a list of player ids, in seat order"))
    if len(set(seat_ids)) != len(seat_ids):
        raise BadRequest(N_("a player may take only one seat in a game"))
    if actor.id not in seat_ids and not actor.has_role("td", "admin"):
        raise Forbidden(N_("players create games they play in; directors create any game"))
    try:
        rules = engine.new_game(name, {str(k): str(v) for k, v in options.items()}, len(seat_ids))
    except EngineError as error:
        raise from_engine(error) from error
    control = clock.normalise(data.get("time_control"))
    start = _start_state(rules, actor, data.get("position"), position_allowed)
    players = [session.get(Player, pid) for pid in seat_ids]
    missing = [pid for pid, player in zip(seat_ids, players, strict=True) if player is None]
    if missing:
        raise NotFound(N_("there is no player %(id)s"), values={"id": missing[0]})
    bank = control["bank"]["initial_days"] * 86400 if control["bank"] else None
    game = Game(
        name=rules.name,
        options=dict(rules.options),
        players=rules.players,
        time_control=control,
        state={},
        turn=0,
        rolls=0,
        draw_offers=[],
        created_by=actor.id,
        start_position=None if start is None else start.position(),
    )
    game.seats = [
        Seat(seat=index, player_id=pid, player=player, missed=0, bank_seconds=bank)
        for index, (pid, player) in enumerate(zip(seat_ids, players, strict=True))
    ]
    session.add(game)
    aggregate = LockedGame.new(session, game)
    if created is not None:
        created(game)
    state = rules.initial_state() if start is None else start
    return apply(session, aggregate, aggregate.start(state, actor, rules.title, now), now)


def _start_state(rules: engine.Game, actor: Player, given: Any, allowed: bool) -> State | None:
    """The engine's reading of a start position, or None for the usual start."""
    if given is None:
        return None
    if not allowed and not actor.has_role("td", "admin"):
        raise Forbidden(N_("only tournament directors and admins start games from a position"))
    return read_start_position(rules, given)


ALREADY_OVER = N_("the game is already over in the position %(position)s: %(status)s")


def read_start_position(rules: engine.Game, given: Any) -> State:
    """A position a game may start from (a game's or a league's): read by the engine, not over."""
    if not isinstance(given, str) or not given.strip() or len(given) > 10000:
        raise BadRequest(
            N_("position must be a position string of %(game)s"), values={"game": rules.title}
        )
    try:
        state = rules.parse_position(given.strip())
    except EngineError as error:
        raise from_engine(error) from error
    if state.is_over:
        position, status = repr(given.strip()), state.status_reason(None)
        raise Conflict(
            ALREADY_OVER % {"position": position, "status": status.render()},
            "game_over",
            render=lambda translate, ntranslate: (
                translate(ALREADY_OVER)
                % {"position": position, "status": status.render(translate, ntranslate)}
            ),
        )
    return state


# -- moves and orders ---------------------------------------------------------------------


def submit(
    session: Session,
    game_id: int,
    player: Player,
    turn: Any,
    text: Any,
    channel: str = "api",
    now: datetime | None = None,
) -> Game:
    """Play a move (sequential games) or submit/replace sealed orders (sealed turns)."""
    now = now or utcnow()
    if not isinstance(text, str) or not text.strip():
        raise BadRequest(N_("text must be the move or orders, as text"))
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.submit(player, turn, text, channel, now), now)


def answer(session: Session, game: Game, seat: int, text: str, now: datetime, note: Event) -> Game:
    """Play a conditional move's answer for ``seat`` in a game this transaction has locked
    (``service.conditional``); its consequences follow, but no further answers (the caller
    goes on answering)."""
    aggregate = LockedGame(session, game)
    player = game.seats[seat].player
    events = aggregate.play(seat, player, text, "conditional", now, note)
    keep_turn(session, aggregate.turn)
    hand_off(session, game, events, now, answers=False)
    return game


def withdraw(session: Session, game_id: int, player: Player, turn: Any) -> Game:
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.withdraw(player, turn), utcnow())


def wait_for_deadline(session: Session, game_id: int, player: Player, turn: Any, wait: Any) -> Game:
    """A seat may hold a sealed turn open until the deadline even once everyone submitted."""
    if not isinstance(wait, bool):
        raise BadRequest(N_("wait must be true or false"))
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.wait(player, turn, wait), utcnow())


def check_turn(session: Session, game: Game, seen: Any) -> State:
    """The state, if ``seen`` is the game's open turn; else the Conflict saying what changed."""
    return LockedGame(session, game).check_turn(seen)


# -- resolution, deadlines, reminders -----------------------------------------------------


def resolve_turn(session: Session, game_id: int, number: int, now: datetime | None = None) -> bool:
    """Resolve turn ``number`` if it is due (everyone in, or the deadline passed); once only."""
    now = now or utcnow()
    aggregate = load(session, game_id)
    events = aggregate.resolve(number, now)
    if events is None:
        return False
    apply(session, aggregate, events, now)
    return True


def finish(
    session: Session,
    aggregate: LockedGame,
    outcome: Outcome,
    by: str,
    now: datetime | None = None,
) -> Game:
    """End a running game (:func:`load`) with ``outcome`` (a director's result, a withdrawal
    from a league); ratings and leagues hear of it like any other end."""
    now = now or utcnow()
    return apply(session, aggregate, aggregate.finish(outcome, now, by), now)


def remind(
    session: Session, game_id: int, number: int, hours: Sequence[float], now: datetime
) -> int:
    """Send the reminders of this turn that are due and not yet sent; returns how many."""
    aggregate = load(session, game_id)
    game, turn = aggregate.game, aggregate.turn
    if game.status != ACTIVE or turn is None or turn.number != number or turn.deadline is None:
        return 0
    state = state_of(game)
    due = [
        h
        for h in hours
        if h not in turn.reminders_sent
        and turn.deadline - timedelta(hours=h) <= now < turn.deadline
    ]
    if not due:
        return 0
    aggregate.note_reminders(due)
    if not opened_well_before(turn.started_at, turn.deadline, min(due)):
        return 0
    owing = [s for s in turn.to_act if s not in state.submitted()]
    for seat in owing:
        player = game.seats[seat].player
        notify.reminder(session, game, state, player, seat, number, min(due), turn.deadline, now)
    return len(owing)


def set_deadline(session: Session, game_id: int, actor: Player, deadline: Any) -> Game:
    """Directors move the current turn's deadline (the sweep resolves it once it has passed).
    Which directors may direct this game (the league's) the caller checks first:
    ``service.leagues.ownership.check_game``; leagues build on this module, not under it."""
    if not actor.has_role("td", "admin"):
        raise Forbidden(N_("only tournament directors and admins set deadlines"))
    if not isinstance(deadline, str):
        raise BadRequest(
            N_("deadline must be an ISO 8601 date and time, e.g. 2030-01-31T12:00:00Z")
        )
    try:
        when = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
    except ValueError as error:
        raise BadRequest(
            N_("cannot read deadline %(given)s: use ISO 8601"), values={"given": repr(deadline)}
        ) from error
    if when.tzinfo is None:
        raise BadRequest(N_("the deadline needs a time zone, e.g. 2030-01-31T12:00:00Z"))
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.set_deadline(actor.name, when), utcnow())


def push_deadline(
    session: Session, game: Game, player: Player, ends: datetime, now: datetime
) -> None:
    """A vacation: move the current deadline back if it concerns the player on leave."""
    aggregate = LockedGame(session, game)
    apply(session, aggregate, aggregate.push_deadline(player, ends, now), now)


# -- resigning and draws ------------------------------------------------------------------


def resign(session: Session, game_id: int, player: Player, now: datetime | None = None) -> Game:
    now = now or utcnow()
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.resign(player, now), now)


def draw(
    session: Session, game_id: int, player: Player, action: str, now: datetime | None = None
) -> Game:
    """``offer``, ``accept`` or ``decline`` a draw; it is agreed when every seat has agreed.
    ``withdraw`` one's own offer. An offer made with a move stands until the opponent has
    answered or moved; every other offer lapses when the turn moves on. The other seats are
    told at once by mail (``draw_news``), and every game mail shows the open offers."""
    now = now or utcnow()
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.draw(player, action, now), now)


def takeback(
    session: Session, game_id: int, player: Player, action: str, now: datetime | None = None
) -> Game:
    """``offer`` to take one's last move back, or ``accept`` / ``decline`` the opponent's
    offer (issue 25). Only in two-player games played move by move without dice, and only
    until the opponent has replied: an offer lapses when a move is played after it. On
    accepting, the move is undone (the mover is to move again, in a new turn from the
    position before it) and every player is told by mail (``takeback_news``)."""
    now = now or utcnow()
    aggregate = load(session, game_id)
    return apply(session, aggregate, aggregate.takeback(player, action, now), now)
