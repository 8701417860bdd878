"""Games: the one place where the engine meets the database.

Every change locks the game row first (``SELECT ... FOR UPDATE``; SQLite serialises whole
transactions), re-reads it and checks the turn, so a retried or doubled request or task
changes nothing twice. Everything shown to a player comes from ``state.view(seat)``; a
spectator gets ``state.view(None)``; sealed orders leave the database only for their author
until the turn resolves.

Lock order (PostgreSQL; SQLite serialises whole transactions). A transaction that locks
several rows takes them in this order, so no two can wait on each other in a circle:

1. the inbound mail row being processed (``mail.gateway.process``);
2. leagues, in id order (``leagues.lock``: a director's action on a league, a round);
3. games, in id order (:func:`lock`; a player's vacation locks all their games first);
4. players, in id order (``ratings._lock_players`` when a game ends; ``players.take_vacation``).

Rows are locked ``FOR NO KEY UPDATE``: they exclude each other but not the key-share locks
PostgreSQL takes on a row when another row referring to it is inserted (an outbox row for a
player, an order for a game), which would otherwise deadlock two games ending at once.
Whatever still collides (a deadlock or a serialization failure) is run again whole by
``db.retrying`` (every API request, every task, and so the mail gateway).
"""

from __future__ import annotations

import secrets
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session, selectinload

import engine
from engine import EngineError, Event, Outcome, State
from service import chain, clock, hooks, notify, receipts
from service.db import enqueue
from service.errors import BadRequest, Conflict, Forbidden, NotFound, from_engine
from service.models import Game, LogEntry, Order, Player, Seat, Step, Turn, utcnow
from service.tasks import Task

RESOLVE_TASK = Task.RESOLVE_TURN
ACTIVE, FINISHED = "active", "finished"
APPLIED = ("played", "resolved", "default")


# -- reading ------------------------------------------------------------------------------


def lock(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction and freshly read."""
    query = (
        select(Game)
        .where(Game.id == game_id)
        .with_for_update(key_share=True)
        .execution_options(populate_existing=True)
    )
    game = session.scalar(query)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game


def get(session: Session, game_id: int) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"there is no game {game_id}")
    return game


def state_of(game: Game) -> State:
    return engine.state_from_json(game.state)


def current_turn(session: Session, game: Game) -> Turn | None:
    return session.scalar(select(Turn).where(Turn.game_id == game.id, Turn.number == game.turn))


def seat_of(game: Game, player: Player | None) -> int | None:
    if player is None:
        return None
    return next((seat.seat for seat in game.seats if seat.player_id == player.id), None)


def _seated(game: Game, player: Player) -> int:
    seat = seat_of(game, player)
    if seat is None:
        raise Forbidden(f"{player.name} does not play in game {game.id}")
    return seat


def _check_turn(session: Session, game: Game, seen: Any) -> None:
    """Refuse a request made against a turn that has moved on, saying what changed."""
    if game.status != ACTIVE:
        raise Conflict(f"game {game.id} is over: {_result_text(game)}", "game_over")
    if isinstance(seen, bool) or not isinstance(seen, int):
        raise BadRequest("send the turn number you saw as 'turn' (a whole number)")
    if seen == game.turn:
        return
    if seen > game.turn or seen < 1:
        raise Conflict(f"there is no turn {seen} yet; it is turn {game.turn}", "turn_mismatch")
    turns = session.scalars(
        select(Turn)
        .where(Turn.game_id == game.id, Turn.number >= seen, Turn.number < game.turn)
        .order_by(Turn.number)
    ).all()
    happened = "; ".join(event["text"] for turn in turns for event in turn.events)
    status = state_of(game).status()
    raise Conflict(
        f"turn {seen} is over, it is now turn {game.turn} ({status}). "
        f"Since then: {happened or 'nothing to report'}",
        "turn_moved_on",
    )


def _result_text(game: Game) -> str:
    result = game.result or {}
    return f"{result.get('result', '?')} ({result.get('reason', '')})"


# -- creating -----------------------------------------------------------------------------


def catalog() -> list[dict[str, Any]]:
    """Every registered game with its options and player counts."""
    games = []
    for name in engine.names():
        cls = engine.game_class(name)
        options = {
            key: {"default": spec.default, "choices": list(spec.choices), "help": spec.help}
            for key, spec in cls.OPTIONS.items()
        }
        games.append(
            {
                "name": name,
                "title": cls.title,
                "players": list(cls.player_counts),
                "options": options,
            }
        )
    return games


def _has_dice(state: State) -> bool:
    return type(state).chance_outcomes is not State.chance_outcomes


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
        raise BadRequest("game must be the name of a game, one of " + ", ".join(engine.names()))
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise BadRequest("options must be an object of option names to values")
    seat_ids = data.get("seats")
    if not isinstance(seat_ids, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 1 <= i < 2**31 for i in seat_ids
    ):
        raise BadRequest("seats must be a list of player ids, in seat order")
    if len(set(seat_ids)) != len(seat_ids):
        raise BadRequest("a player may take only one seat in a game")
    if actor.id not in seat_ids and not actor.has_role("td", "admin"):
        raise Forbidden("players create games they play in; directors create any game")
    try:
        rules = engine.new_game(name, {str(k): str(v) for k, v in options.items()}, len(seat_ids))
    except EngineError as error:
        raise from_engine(error) from error
    control = clock.normalise(data.get("time_control"))
    start = _start_state(rules, actor, data.get("position"), position_allowed)
    players = [session.get(Player, pid) for pid in seat_ids]
    missing = [pid for pid, player in zip(seat_ids, players, strict=True) if player is None]
    if missing:
        raise NotFound(f"there is no player {missing[0]}")
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
        Seat(seat=index, player_id=pid, missed=0, bank_seconds=bank)
        for index, pid in enumerate(seat_ids)
    ]
    session.add(game)
    state = rules.initial_state() if start is None else start
    if _has_dice(state):
        game.seed = secrets.token_bytes(32)
        game.commitment = _dice().commitment(game.seed)
    session.flush()
    if created is not None:
        created(game)
    chain.started(session, game)
    _log(session, game, "created", None, f"{actor.name} created a game of {rules.title}")
    if game.start_position is not None:
        _log(session, game, "position", None, f"Started from the position {game.start_position}")
    state = _advance(session, game, state, (), now, "start")
    notify.started(session, game)
    return game


def _start_state(rules: engine.Game, actor: Player, given: Any, allowed: bool) -> State | None:
    """The engine's reading of a start position, or None for the usual start."""
    if given is None:
        return None
    if not allowed and not actor.has_role("td", "admin"):
        raise Forbidden("only tournament directors and admins start games from a position")
    return read_start_position(rules, given)


def read_start_position(rules: engine.Game, given: Any) -> State:
    """A position a game may start from (a game's or a league's): read by the engine, not over."""
    if not isinstance(given, str) or not given.strip() or len(given) > 10000:
        raise BadRequest(f"position must be a position string of {rules.title}")
    try:
        state = rules.parse_position(given.strip())
    except EngineError as error:
        raise from_engine(error) from error
    if state.is_over:
        raise Conflict(
            f"the game is already over in the position {given.strip()!r}: {state.status()}",
            "game_over",
        )
    return state


def _dice() -> Any:
    from engine import dice  # type: ignore[attr-defined,unused-ignore]

    return dice


# -- stepping -----------------------------------------------------------------------------


def _log(session: Session, game: Game, kind: str, seat: int | None, text: str) -> None:
    session.add(LogEntry(game_id=game.id, turn=game.turn, kind=kind, seat=seat, text=text))


def _step(session: Session, game: Game, kind: str, seat: int | None, text: str) -> None:
    count = session.scalar(select(func.count()).select_from(Step).where(Step.game_id == game.id))
    session.add(
        Step(game_id=game.id, number=count or 0, turn=game.turn, kind=kind, seat=seat, text=text)
    )
    session.flush()


def history(session: Session, game: Game) -> list[str]:
    """The texts of every move played so far, in order (the dice derivation's input)."""
    query = select(Step.text).where(Step.game_id == game.id, Step.kind == "move")
    return list(session.scalars(query.order_by(Step.number)))


def _roll_dice(
    session: Session, game: Game, state: State, events: list[Event]
) -> tuple[State, list[Event]]:
    while not state.is_over and state.chance_outcomes():
        if game.seed is None:
            game.seed = secrets.token_bytes(32)
            game.commitment = _dice().commitment(game.seed)
        game.rolls += 1  # rolls are numbered from 1 (engine/dice.py, step 2)
        outcome = _dice().roll(
            game.seed, str(game.id), game.rolls, history(session, game), state.chance_outcomes()
        )
        chain.append(session, game, "roll", {"roll": game.rolls, "outcome": outcome})
        _step(session, game, "chance", None, outcome)
        resolution = state.apply_chance(outcome)
        state, events = resolution.state, [*events, *resolution.events]
    return state, events


def _advance(
    session: Session, game: Game, state: State, events: Sequence[Event], now: datetime, by: str
) -> State:
    """After a step: roll any dice due, close this turn, then finish or open the next turn."""
    state, told = _roll_dice(session, game, state, list(events))
    turn = current_turn(session, game)
    if turn is not None:
        turn.resolved_at, turn.resolved_by = now, by
        turn.events = [event.to_json() for event in told]
    for event in told:
        _log(session, game, event.kind, event.seat, event.text)
    game.draw_offers = _standing_offers(game, state)
    game.state = state.to_json()
    if state.outcome is not None:
        _finish(session, game, state, state.outcome, now, by)
        return state
    game.turn += 1
    session.add(
        Turn(
            game_id=game.id,
            number=game.turn,
            to_act=list(state.to_act),
            state=game.state,
            phase="sealed" if state.simultaneous else "move",
            started_at=now,
            deadline=_deadline(game, state, now),
            waiting=[],
            reminders_sent=[],
            events=[],
        )
    )
    session.flush()
    if by != "start":
        notify.turn_result(session, game, state, told, game.turn - 1)
    return state


def _deadline(game: Game, state: State, now: datetime) -> datetime:
    control = game.time_control
    seats = {seat.seat: seat for seat in game.seats}
    away = [
        clock.vacation_end([(v.starts, v.ends) for v in seats[s].player.vacations], now)
        for s in state.to_act
    ]
    start = max([now, *(end for end in away if end is not None)])
    bank = seats[state.to_act[0]].bank_seconds if not state.simultaneous else None
    days = bank / 86400 if bank is not None else control["days"]
    return clock.add_days(start, days, control["skip_weekends"])


def _finish(
    session: Session, game: Game, state: State, outcome: Outcome, now: datetime, by: str
) -> None:
    turn = current_turn(session, game)
    if turn is not None and turn.resolved_at is None:
        turn.resolved_at, turn.resolved_by = now, by
        turn.events = [Event(outcome.reason, "end").to_json()]
    for order in session.scalars(
        select(Order).where(Order.game_id == game.id, Order.status == "current")
    ):
        order.status = "void"
    game.status, game.result, game.finished_at = FINISHED, outcome.to_json(), now
    chain.ended(session, game, by, outcome.to_json())
    _log(session, game, "end", None, f"Game over: {outcome.result} ({outcome.reason})")
    reason = f"{outcome.result} ({outcome.reason})"
    notify.ended(session, game, state, reason, lambda reader: text_record(session, game, reader))
    hooks.game_finished(session, game, outcome, by, now)


def _losing(game: Game, seat: int, reason: str) -> Outcome:
    """The seat loses; with more than two seats the others share first place."""
    return Outcome(tuple(2 if s == seat else 1 for s in range(game.players)), reason)


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
        raise BadRequest("text must be the move or orders, as text")
    game = lock(session, game_id)
    seat = _seated(game, player)
    _check_turn(session, game, turn)
    state = state_of(game)
    if not state.simultaneous:
        _play(session, game, state, seat, player, text, channel, now)
        hooks.move_played(session, game, now)  # conditional moves may answer it at once
        return game
    try:
        new = state.submit(seat, text)
    except EngineError as error:
        raise from_engine(error) from error
    parsed = new.format(new.orders_of(seat))
    _retire_orders(session, game, seat, "replaced")
    salt = secrets.token_hex(16)
    receipt = receipts.receipt(game.id, game.turn, seat, parsed, salt)
    session.add(
        Order(
            game_id=game.id,
            turn=game.turn,
            seat=seat,
            player_id=player.id,
            text=text,
            parsed=parsed,
            channel=channel,
            sealed=True,
            status="current",
            receipt=receipt,
            receipt_salt=salt,
            created_at=now,
        )
    )
    game.state = new.to_json()
    name = new.game.seat_names[seat]
    _log(session, game, "orders", seat, f"{name} submitted sealed orders (receipt {receipt})")
    _queue_if_ready(session, game, new)
    return game


def sealed_order(session: Session, game: Game, seat: int) -> Order | None:
    """The seat's sealed orders standing for the game's open turn (with their receipt)."""
    return session.scalar(
        select(Order).where(
            Order.game_id == game.id,
            Order.turn == game.turn,
            Order.seat == seat,
            Order.status == "current",
            Order.sealed.is_(True),
        )
    )


def _retire_orders(session: Session, game: Game, seat: int, status: str) -> None:
    query = select(Order).where(
        Order.game_id == game.id,
        Order.turn == game.turn,
        Order.seat == seat,
        Order.status == "current",
    )
    for order in session.scalars(query):
        order.status = status


def _play(
    session: Session,
    game: Game,
    state: State,
    seat: int,
    player: Player,
    text: str,
    channel: str,
    now: datetime,
    note: Event | None = None,
) -> None:
    try:
        resolution = state.play(seat, text)
        parsed = state.format(state.parse(seat, text))
    except EngineError as error:
        raise from_engine(error) from error
    session.add(
        Order(
            game_id=game.id,
            turn=game.turn,
            seat=seat,
            player_id=player.id,
            text=text,
            parsed=parsed,
            channel=channel,
            sealed=False,
            status="played",
            created_at=now,
        )
    )
    _step(session, game, "move", seat, parsed)
    chain.append(session, game, "move", {"seat": seat, "text": parsed})
    seat_row = game.seats[seat]
    seat_row.missed = 0
    bank = game.time_control["bank"]
    turn = current_turn(session, game)
    if bank and turn is not None and turn.deadline is not None:
        left = max(0.0, (turn.deadline - now).total_seconds())
        seat_row.bank_seconds = min(left + bank["increment_days"] * 86400, bank["max_days"] * 86400)
    told = (note, *resolution.events) if note is not None else resolution.events
    _advance(session, game, resolution.state, told, now, "move")


def withdraw(session: Session, game_id: int, player: Player, turn: Any) -> Game:
    game = lock(session, game_id)
    seat = _seated(game, player)
    _check_turn(session, game, turn)
    state = state_of(game)
    if not state.simultaneous or state.orders_of(seat) is None:
        raise Conflict("you have no sealed orders in this turn to withdraw", "no_orders")
    game.state = state.withdraw(seat).to_json()
    _retire_orders(session, game, seat, "withdrawn")
    _log(session, game, "withdrawn", seat, f"{state.game.seat_names[seat]} withdrew their orders")
    return game


def wait_for_deadline(session: Session, game_id: int, player: Player, turn: Any, wait: Any) -> Game:
    """A seat may hold a sealed turn open until the deadline even once everyone submitted."""
    if not isinstance(wait, bool):
        raise BadRequest("wait must be true or false")
    game = lock(session, game_id)
    seat = _seated(game, player)
    _check_turn(session, game, turn)
    state = state_of(game)
    row = current_turn(session, game)
    if not state.simultaneous or row is None:
        raise Conflict("only sealed turns wait for their deadline", "not_sealed")
    others = [s for s in row.waiting if s != seat]
    row.waiting = sorted([*others, seat]) if wait else others
    _queue_if_ready(session, game, state)
    return game


def _ready(turn: Turn, state: State) -> bool:
    return not turn.waiting and set(state.to_act) <= set(state.submitted())


def _queue_if_ready(session: Session, game: Game, state: State) -> None:
    turn = current_turn(session, game)
    if turn is not None and _ready(turn, state):
        enqueue(session, RESOLVE_TASK, game.id, game.turn)


@dataclass(frozen=True)
class ActionReader:
    """Reads a text as one player's action in one position (see :func:`action_reader`)."""

    game: Game
    state: State
    seat: int

    def __call__(self, text: str) -> str:
        if self.game.status != ACTIVE:
            raise Conflict(f"game {self.game.id} is over: {_result_text(self.game)}", "game_over")
        return read_action(self.state, self.seat, text)

    def legal(self) -> Sequence[str]:
        """The canonical texts of the player's legal actions now (see :func:`legal_texts`)."""
        return legal_texts(self.state, self.seat) if self.game.status == ACTIVE else ()


def action_reader(session: Session, game_id: int, player: Player) -> ActionReader:
    """A function reading a text as ``player``'s action in this position: its canonical text,
    or the ServiceError saying why it is none; its ``legal`` lists the legal actions. Stores
    nothing; the state is read once, so a reply reader may ask about many candidate texts."""
    game = get(session, game_id)
    return ActionReader(game, state_of(game), _seated(game, player))


MAX_LISTED = 50_000
"""Past this many legal actions (an Elasta turn has 40,320, a Nelaxtam invasion about 10^9)
none are listed."""


def legal_texts(state: State, seat: int) -> Sequence[str]:
    """The canonical texts of ``seat``'s legal actions, or () when there are more than
    ``MAX_LISTED`` (or ``seat`` has none)."""
    actions = state.legal_actions(seat)
    if len(actions) > MAX_LISTED:
        return ()
    return [state.format(action) for action in actions]


def read_action(state: State, seat: int, text: str) -> str:
    """The canonical text of ``text`` as ``seat``'s whole action now (a chain, a set of sealed
    orders), checked as playing or submitting it would; ServiceError if it is none."""
    try:
        if state.simultaneous:
            new = state.submit(seat, text)
            return new.format(new.orders_of(seat))
        state.play(seat, text)
        return state.format(state.parse(seat, text))
    except EngineError as error:
        raise from_engine(error) from error


def preview(session: Session, game_id: int, player: Player, text: Any) -> dict[str, Any]:
    """The caller's view after this move, stored nowhere. Sealed turns take the other seats'
    default orders, never their real ones; no dice are rolled."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("text must be the move or orders, as text")
    game = get(session, game_id)
    seat = _seated(game, player)
    if game.status != ACTIVE:
        raise Conflict(f"game {game.id} is over: {_result_text(game)}", "game_over")
    state = state_of(game)
    try:
        if state.simultaneous:
            own = state
            for other in state.submitted():
                own = own.withdraw(other) if other != seat else own
            resolution = own.submit(seat, text).resolve()
        else:
            resolution = state.play(seat, text)
    except EngineError as error:
        raise from_engine(error) from error
    return {
        "events": [event.to_json() for event in resolution.events],
        "view": resolution.state.view(seat).to_json(),
    }


# -- resolution, deadlines, reminders -----------------------------------------------------


def resolve_turn(session: Session, game_id: int, number: int, now: datetime | None = None) -> bool:
    """Resolve turn ``number`` if it is due (everyone in, or the deadline passed); once only."""
    now = now or utcnow()
    game = lock(session, game_id)
    turn = current_turn(session, game)
    if game.status != ACTIVE or game.turn != number or turn is None or turn.resolved_at:
        return False
    _load_players(session, game)
    state = state_of(game)
    due = turn.deadline is not None and turn.deadline <= now
    if not state.simultaneous:
        if due:
            seat = state.to_act[0]
            reason = f"{state.game.seat_names[seat]} lost on time"
            _finish(session, game, state, _losing(game, seat, reason), now, "time")
        return due
    if not (_ready(turn, state) or due):
        return False
    missing = [seat for seat in state.to_act if seat not in state.submitted()]
    forfeit_after = game.time_control["forfeit_after"]
    for seat in state.to_act:
        game.seats[seat].missed = game.seats[seat].missed + 1 if seat in missing else 0
        if forfeit_after and game.seats[seat].missed >= forfeit_after:
            reason = f"{state.game.seat_names[seat]} forfeited after {forfeit_after} missed turns"
            _finish(session, game, state, _losing(game, seat, reason), now, "forfeit")
            return True
    events = []
    for seat in state.to_act:
        _retire_orders(session, game, seat, "resolved")
        action = state.orders_of(seat)
        if action is None:
            action = state.default_action(seat)
            parsed = state.format(action)
            session.add(
                Order(
                    game_id=game.id,
                    turn=game.turn,
                    seat=seat,
                    text=parsed,
                    parsed=parsed,
                    channel="deadline",
                    sealed=True,
                    status="default",
                    created_at=now,
                )
            )
            name = state.game.seat_names[seat]
            events.append(
                Event(f"{name} sent no orders and got the default: {parsed}", "default", seat)
            )
        _step(session, game, "move", seat, state.format(action))
        chain.sealed_orders(session, game, seat, state.format(action))
    resolution = state.resolve()
    _advance(
        session,
        game,
        resolution.state,
        [*events, *resolution.events],
        now,
        "deadline" if missing else "orders",
    )
    return True


def _load_players(session: Session, game: Game) -> None:
    """The seated players with their addresses and vacations, in three statements rather than
    three per seat (the deadline and every mail of a resolution need them)."""
    query = (
        select(Player)
        .join(Seat, Seat.player_id == Player.id)
        .where(Seat.game_id == game.id)
        .options(selectinload(Player.emails), selectinload(Player.vacations))
    )
    # held by the session's info: its identity map keeps only weak references
    session.info.setdefault("loaded", []).extend(session.scalars(query))


def due_turns(session: Session, now: datetime) -> list[tuple[int, int]]:
    """(game, turn) pairs to resolve: deadline passed, or sealed with every order in and no
    seat waiting (what :func:`_ready` says of the state, read from the order rows). One query
    on the open turns, by deadline; no game state is loaded or parsed."""
    orders_in = (
        select(func.count(func.distinct(Order.seat)))
        .where(Order.game_id == Turn.game_id, Order.turn == Turn.number, Order.status == "current")
        .scalar_subquery()
    )
    complete = and_(
        Turn.phase == "sealed",
        func.json_array_length(Turn.waiting) == 0,
        orders_in >= func.json_array_length(Turn.to_act),
    )
    query = (
        select(Turn.game_id, Turn.number)
        .join(Game, and_(Game.id == Turn.game_id, Game.turn == Turn.number))
        .where(
            Game.status == ACTIVE, Turn.resolved_at.is_(None), or_(Turn.deadline <= now, complete)
        )
        .order_by(Turn.deadline, Turn.game_id)
    )
    return [(game_id, number) for game_id, number in session.execute(query)]


def reminders_due(session: Session, hours: Sequence[float], now: datetime) -> list[tuple[int, int]]:
    if not hours:
        return []
    query = (
        select(Turn.game_id, Turn.number)
        .join(Game, Game.id == Turn.game_id)
        .where(
            Game.status == ACTIVE,
            Turn.resolved_at.is_(None),
            Turn.number == Game.turn,
            Turn.deadline > now,
            Turn.deadline <= now + timedelta(hours=max(hours)),
        )
    )
    return [(game_id, number) for game_id, number in session.execute(query)]


def remind(
    session: Session, game_id: int, number: int, hours: Sequence[float], now: datetime
) -> int:
    """Send the reminders of this turn that are due and not yet sent; returns how many."""
    game = lock(session, game_id)
    turn = current_turn(session, game)
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
    turn.reminders_sent = sorted({*turn.reminders_sent, *due})
    if not opened_well_before(turn.started_at, turn.deadline, min(due)):
        return 0
    owing = [s for s in turn.to_act if s not in state.submitted()]
    for seat in owing:
        player = game.seats[seat].player
        notify.reminder(session, game, state, player, seat, number, min(due), turn.deadline, now)
    return len(owing)


REMINDER_LEAD = 0.5
"""A reminder ``h`` hours before the deadline goes out only if the turn had been open for at
least this fraction of ``h`` by then: the mail that opened the turn said all a reminder would."""


def opened_well_before(started: datetime, deadline: datetime, hours: float) -> bool:
    """Whether a turn that opened at ``started`` earns its reminder ``hours`` before
    ``deadline``: it must have opened ``(1 + REMINDER_LEAD) * hours`` before the deadline.

    >>> from datetime import UTC
    >>> end = datetime(2030, 1, 2, 12, 0, tzinfo=UTC)
    >>> opened_well_before(end - timedelta(hours=24), end, 24)  # one-day turns
    False
    >>> opened_well_before(end - timedelta(hours=36), end, 24)
    True
    """
    return deadline - started >= timedelta(hours=hours * (1 + REMINDER_LEAD))


def set_deadline(session: Session, game_id: int, actor: Player, deadline: Any) -> Game:
    """Directors move the current turn's deadline (the sweep resolves it once it has passed).
    Which directors may direct this game (the league's) the caller checks first:
    ``service.leagues.ownership.check_game``; leagues build on this module, not under it."""
    if not actor.has_role("td", "admin"):
        raise Forbidden("only tournament directors and admins set deadlines")
    if not isinstance(deadline, str):
        raise BadRequest("deadline must be an ISO 8601 date and time, e.g. 2030-01-31T12:00:00Z")
    try:
        when = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
    except ValueError as error:
        raise BadRequest(f"cannot read deadline {deadline!r}: use ISO 8601") from error
    if when.tzinfo is None:
        raise BadRequest("the deadline needs a time zone, e.g. 2030-01-31T12:00:00Z")
    game = lock(session, game_id)
    turn = current_turn(session, game)
    if game.status != ACTIVE or turn is None:
        raise Conflict(f"game {game.id} is over: {_result_text(game)}", "game_over")
    turn.deadline = when
    chain.director(session, game, actor.name, "deadline", when.isoformat())
    _log(session, game, "deadline", None, f"{actor.name} set the deadline to {when.isoformat()}")
    owing = set(turn.to_act) - set(state_of(game).submitted())
    for seat in game.seats:
        if seat.seat in owing:
            notify.your_turn(session, game, seat.player, when)
    return game


def push_deadline(
    session: Session, game: Game, player: Player, ends: datetime, now: datetime
) -> None:
    """A vacation: move the current deadline back if it concerns the player on leave."""
    turn = current_turn(session, game)
    seat = seat_of(game, player)
    if turn is None or turn.deadline is None or turn.resolved_at is not None:
        return
    if turn.phase == "sealed" or seat in turn.to_act:
        turn.deadline += max(timedelta(0), ends - now)
    _log(session, game, "vacation", seat, f"{player.name} is on vacation until {ends.isoformat()}")


# -- resigning and draws ------------------------------------------------------------------


def resign(session: Session, game_id: int, player: Player, now: datetime | None = None) -> Game:
    game = lock(session, game_id)
    seat = _seated(game, player)
    if game.status != ACTIVE:
        raise Conflict(f"game {game.id} is over: {_result_text(game)}", "game_over")
    state = state_of(game)
    reason = f"{state.game.seat_names[seat]} resigned"
    _finish(session, game, state, _losing(game, seat, reason), now or utcnow(), "resign")
    return game


def draw(
    session: Session, game_id: int, player: Player, action: str, now: datetime | None = None
) -> Game:
    """``offer``, ``accept`` or ``decline`` a draw; it is agreed when every seat has agreed.
    ``withdraw`` one's own offer. An offer made with a move stands until the opponent has
    answered or moved; every other offer lapses when the turn moves on. The other seats are
    told at once by mail (``draw_news``), and every game mail shows the open offers."""
    game = lock(session, game_id)
    seat = _seated(game, player)
    if game.status != ACTIVE:
        raise Conflict(f"game {game.id} is over: {_result_text(game)}", "game_over")
    state = state_of(game)
    name = state.game.seat_names[seat]
    offers = list(game.draw_offers)
    others = [s for s in offers if s != seat]
    if action == "offer" and seat in offers:
        raise Conflict("you have already offered a draw in this turn", "already_offered")
    if action in ("accept", "decline") and not others:
        raise Conflict(f"there is no draw offer to {action}", "no_offer")
    if action not in ("offer", "accept", "decline", "withdraw"):
        raise BadRequest("action must be offer, accept, decline or withdraw")
    if action == "withdraw" and seat not in offers:
        raise Conflict("you have no draw offer to withdraw", "no_offer")
    if action in ("decline", "withdraw"):
        game.draw_offers = [] if action == "decline" else others
        verb = "declined the draw offer" if action == "decline" else "withdrew their draw offer"
        _log(session, game, "draw", seat, f"{name} {verb}")
        notify.draw_news(session, game, seat, verb)
        return game
    game.draw_offers = sorted([*offers, seat])
    verb = "offered" if action == "offer" and not others else "accepted"
    _log(session, game, "draw", seat, f"{name} {verb} a draw")
    if len(game.draw_offers) == game.players:
        outcome = Outcome.draw(game.players, "draw by agreement")
        _finish(session, game, state, outcome, now or utcnow(), "draw")
    else:
        notify.draw_news(session, game, seat, f"{verb} a draw")
    return game


def _standing_offers(game: Game, state: State) -> list[int]:
    """Offers that outlive a step: those of seats that are not to act next. An offer made
    with a move stands until the opponent has answered or moved; every other offer lapses."""
    if state.simultaneous or state.outcome is not None:
        return []
    return [seat for seat in game.draw_offers if seat not in state.to_act]


# -- output -------------------------------------------------------------------------------


def to_json(session: Session, game: Game, viewer: Player | None) -> dict[str, Any]:
    """The game as ``viewer`` may see it: their seat's view, or a spectator's."""
    seat = seat_of(game, viewer)
    state = state_of(game)
    turn = current_turn(session, game)
    data = summary(session, game, viewer, state, turn)
    data["view"] = state.view(seat).to_json()
    data["time_control"] = game.time_control
    if seat is not None and turn is not None and turn.resolved_at is None:
        own = session.scalar(
            select(Order).where(
                Order.game_id == game.id,
                Order.turn == game.turn,
                Order.seat == seat,
                Order.status == "current",
            )
        )
        data["receipt"] = own.receipt if own else None
    return data


def summary(
    session: Session,
    game: Game,
    viewer: Player | None,
    state: State | None = None,
    turn: Turn | None = None,
) -> dict[str, Any]:
    state = state or state_of(game)
    turn = turn if turn is not None else current_turn(session, game)
    active = game.status == ACTIVE and turn is not None
    return {
        "id": game.id,
        "game": game.name,
        "options": game.options,
        "status": game.status,
        "turn": game.turn,
        "you": seat_of(game, viewer),
        "seats": [
            {
                "seat": s.seat,
                "name": state.game.seat_names[s.seat],
                "player": {"id": s.player_id, "name": s.player.name},
                "missed": s.missed,
                "bank_days": None if s.bank_seconds is None else round(s.bank_seconds / 86400, 4),
            }
            for s in game.seats
        ],
        "to_act": list(turn.to_act) if active and turn else [],
        "submitted": list(state.submitted()) if active else [],
        "waiting": list(turn.waiting) if active and turn else [],
        "deadline": turn.deadline.isoformat() if active and turn and turn.deadline else None,
        "draw_offers": game.draw_offers,
        "status_line": (
            f"Game over: {_result_text(game)}" if game.status != ACTIVE else state.status()
        ),
        "result": game.result,
        "commitment": game.commitment,
    }


def list_for(session: Session, player: Player, which: str) -> list[dict[str, Any]]:
    """``mine`` (all my games), ``waiting`` (owing a move or orders), ``finished``, ``all``."""
    kinds = ("mine", "waiting", "finished", "active", "all")
    if which not in kinds:
        raise BadRequest(f"filter must be one of {', '.join(kinds)}")
    query = select(Game).order_by(Game.id)
    if which == "all":
        if not player.has_role("td", "admin"):
            raise Forbidden("only tournament directors and admins list every game")
    else:
        query = query.join(Seat).where(Seat.player_id == player.id)
    if which == "finished":
        query = query.where(Game.status == FINISHED)
    if which in ("active", "waiting"):
        query = query.where(Game.status == ACTIVE)
    games = []
    for game in session.scalars(query):
        item = summary(session, game, player)
        seat = item["you"]
        if which == "waiting" and (seat not in item["to_act"] or seat in item["submitted"]):
            continue
        games.append(item)
    return games


def _visible(order: Order, viewer_seat: int | None) -> bool:
    return not order.sealed or order.status in APPLIED or order.seat == viewer_seat


SEALED_ACTIVITY = ("orders", "withdrawn")
"""Log kinds that tell when (and with which receipt) a seat changed its sealed orders."""


def _log_visible(entry: LogEntry, open_turns: set[int], viewer_seat: int | None) -> bool:
    """Until a sealed turn resolves, its order activity is its author's alone: an opponent
    must not learn when, or how often, orders were replaced."""
    sealed_and_open = entry.kind in SEALED_ACTIVITY and entry.turn in open_turns
    return not sealed_and_open or entry.seat == viewer_seat


def record(session: Session, game: Game, viewer: Player | None) -> dict[str, Any]:
    """Every move, order, roll and event the viewer may see; the dice record format on top."""
    seat = seat_of(game, viewer)
    state = state_of(game)
    steps = session.scalars(select(Step).where(Step.game_id == game.id).order_by(Step.number))
    orders = session.scalars(select(Order).where(Order.game_id == game.id).order_by(Order.id))
    turns = session.scalars(select(Turn).where(Turn.game_id == game.id).order_by(Turn.number)).all()
    log = session.scalars(select(LogEntry).where(LogEntry.game_id == game.id).order_by(LogEntry.id))
    open_turns = {turn.number for turn in turns if turn.resolved_at is None}
    finished = game.status == FINISHED
    return {
        **state.game.to_json(),
        "game_id": str(game.id),
        "commitment": game.commitment,
        "seed": game.seed.hex() if finished and game.seed else None,
        "steps": [
            {"kind": "chance", "outcome": step.text}
            if step.kind == "chance"
            else {"kind": "move", "seat": step.seat, "text": step.text}
            for step in steps
        ],
        "id": game.id,
        "seat_names": list(state.game.seat_names),
        "seats": [
            {"seat": s.seat, "player": s.player.name, "player_id": s.player_id} for s in game.seats
        ],
        "status": game.status,
        "result": game.result,
        "time_control": game.time_control,
        "created_at": game.created_at.isoformat(),
        "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        "start_position": game.start_position,
        "turns": [
            {
                "number": turn.number,
                "phase": turn.phase,
                "to_act": turn.to_act,
                "position": engine.state_from_json(turn.state).position(),
                "started_at": turn.started_at.isoformat(),
                "deadline": turn.deadline.isoformat() if turn.deadline else None,
                "resolved_at": turn.resolved_at.isoformat() if turn.resolved_at else None,
                "resolved_by": turn.resolved_by,
                "events": turn.events,
            }
            for turn in turns
        ],
        "orders": [
            {
                "turn": order.turn,
                "seat": order.seat,
                "text": order.text,
                "parsed": order.parsed,
                "channel": order.channel,
                "status": order.status,
                "sealed": order.sealed,
                "receipt": order.receipt,
                "receipt_salt": order.receipt_salt if order.status in APPLIED else None,
                "at": order.created_at.isoformat(),
            }
            for order in orders
            if _visible(order, seat)
        ],
        "log": [
            {"at": e.at.isoformat(), "turn": e.turn, "kind": e.kind, "seat": e.seat, "text": e.text}
            for e in log
            if _log_visible(e, open_turns, seat)
        ],
        "position": state.position(),
        "chain": chain.export(session, game),
    }


def text_record(session: Session, game: Game, viewer: Player | None) -> str:
    """A compact PGN-like record: tag pairs, then the move list, one number per turn.

    Chance outcomes stand in braces; a sealed turn's orders are joined with ``|``.
    """
    data = record(session, game, viewer)
    result = (data["result"] or {}).get("result", "*")
    tags: dict[str, Any] = {
        "Game": data["game"],
        "Id": data["id"],
        "Options": " ".join(f"{k}={v}" for k, v in data["options"].items()),
        "Date": data["created_at"][:10].replace("-", "."),
    }
    for seat in data["seats"]:
        tags[data["seat_names"][seat["seat"]]] = seat["player"]
    tags["Result"] = result
    tags["Termination"] = (data["result"] or {}).get("reason", "unterminated")
    if data["start_position"]:
        tags["Position"] = data["start_position"]
    if data["commitment"]:
        tags["Commitment"] = data["commitment"]
    if data["seed"]:
        tags["Seed"] = data["seed"]
    head = [f'[{key} "{str(value).replace(chr(34), chr(39))}"]' for key, value in tags.items()]
    by_turn: dict[int, list[str]] = {}
    for step in session.scalars(select(Step).where(Step.game_id == game.id).order_by(Step.number)):
        text = "{" + step.text + "}" if step.kind == "chance" else step.text
        by_turn.setdefault(step.turn, []).append(text)
    moves = [f"{n}. " + " | ".join(texts) for n, texts in enumerate(by_turn.values(), 1)]
    body = textwrap.fill(" ".join([*moves, result]), width=79, break_on_hyphens=False)
    return "\n".join(head) + "\n\n" + body + "\n"
