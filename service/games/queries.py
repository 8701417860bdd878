"""Read-only views of games (issue 23): what a player, a spectator or a record sees; the
sweep's queries. Nothing here writes a row (the aggregate does, :mod:`service.games.aggregate`).

Everything shown to a player comes from ``state.view(seat)``; a spectator gets
``state.view(None)``; sealed orders leave the database only for their author until the turn
resolves.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

import engine
from engine import EngineError, State
from service import chain
from service.errors import BadRequest, Forbidden, NotFound, from_engine
from service.games.aggregate import (
    current_turn,
    game_over,
    public_result,
    result_text,
    seat_of,
    seated,
    state_of,
)
from service.i18n import N_
from service.models import (
    APPLIED,
    Game,
    GameStatus,
    LogEntry,
    Order,
    OrderStatus,
    Player,
    Seat,
    Step,
    Turn,
    utcnow,
)

URGENT = timedelta(hours=24)
"""A game waiting for its reader with less time left than this is flagged (as AbstractPlay does)."""

ACTIVE, FINISHED = GameStatus.ACTIVE, GameStatus.FINISHED


def get(session: Session, game_id: int) -> Game:
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(N_("there is no game %(id)s"), values={"id": game_id})
    return game


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


def history(session: Session, game: Game) -> list[str]:
    """The texts of every move played so far, in order (the dice derivation's input)."""
    query = select(Step.text).where(Step.game_id == game.id, Step.kind == "move")
    return list(session.scalars(query.order_by(Step.number)))


def sealed_order(session: Session, game: Game, seat: int) -> Order | None:
    """The seat's sealed orders standing for the game's open turn (with their receipt)."""
    return session.scalar(
        select(Order).where(
            Order.game_id == game.id,
            Order.turn == game.turn,
            Order.seat == seat,
            Order.status == OrderStatus.CURRENT,
            Order.sealed.is_(True),
        )
    )


@dataclass(frozen=True)
class ActionReader:
    """Reads a text as one player's action in one position (see :func:`action_reader`)."""

    game: Game
    state: State
    seat: int

    def __call__(self, text: str) -> str:
        if self.game.status != ACTIVE:
            raise game_over(self.game)
        return read_action(self.state, self.seat, text)

    def legal(self) -> Sequence[str]:
        """The canonical texts of the player's legal actions now (see :func:`legal_texts`)."""
        return legal_texts(self.state, self.seat) if self.game.status == ACTIVE else ()


def action_reader(session: Session, game_id: int, player: Player) -> ActionReader:
    """A function reading a text as ``player``'s action in this position: its canonical text,
    or the ServiceError saying why it is none; its ``legal`` lists the legal actions. Stores
    nothing; the state is read once, so a reply reader may ask about many candidate texts."""
    game = get(session, game_id)
    return ActionReader(game, state_of(game), seated(game, player))


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


def preview(
    session: Session, game_id: int, player: Player, text: Any, locale: str | None = None
) -> dict[str, Any]:
    """The caller's view after this move, stored nowhere (:func:`previewed`). With a
    ``locale`` (a page), the events and the lines under the board are in that language; else
    the engine's English."""
    seat, resolution = previewed(session, game_id, player, text)
    view = resolution.state.view(seat).to_json()
    if locale is None:
        return {"events": [event.to_json() for event in resolution.events], "view": view}
    from service.mail.render import events_in, info_in  # the mails' words, for a page

    view["info"] = info_in(locale, resolution.state, seat, view["info"])
    return {"events": events_in(locale, resolution.events), "view": view}


def previewed(
    session: Session, game_id: int, player: Player, text: Any
) -> tuple[int, engine.Resolution]:
    """The caller's seat and what this move would do, stored nowhere. Sealed turns take the
    other seats' default orders, never their real ones; no dice are rolled."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest("text must be the move or orders, as text")
    game = get(session, game_id)
    seat = seated(game, player)
    if game.status != ACTIVE:
        raise game_over(game)
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
    return seat, resolution


# -- resolution, deadlines, reminders -----------------------------------------------------


def due_turns(session: Session, now: datetime) -> list[tuple[int, int]]:
    """(game, turn) pairs to resolve: deadline passed, or sealed with every order in and no
    seat waiting (what ``LockedGame.ready`` says of the state, read from the order rows). One query
    on the open turns, by deadline; no game state is loaded or parsed."""
    orders_in = (
        select(func.count(func.distinct(Order.seat)))
        .where(
            Order.game_id == Turn.game_id,
            Order.turn == Turn.number,
            Order.status == OrderStatus.CURRENT,
        )
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


def to_json(session: Session, game: Game, viewer: Player | None) -> dict[str, Any]:
    """The game as ``viewer`` may see it: their seat's view, or a spectator's."""
    seat = seat_of(game, viewer)
    state = state_of(game)
    turn = current_turn(session, game)
    data = summary(session, game, viewer, state, turn)
    data["view"] = state.view(seat).to_json()
    data["time_control"] = game.time_control
    if seat is not None and turn is not None and turn.resolved_at is None:
        data["receipt"] = None
        if not state.simultaneous:  # only sealed orders stand (status current) in a turn
            return data
        own = session.scalar(
            select(Order).where(
                Order.game_id == game.id,
                Order.turn == game.turn,
                Order.seat == seat,
                Order.status == OrderStatus.CURRENT,
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
        "takeback_offer": _takeback_offer(game) if active else None,
        "status_line": (
            f"Game over: {result_text(game)}" if game.status != ACTIVE else state.status()
        ),
        "result": public_result(game.result),
        "commitment": game.commitment,
    }


def _takeback_offer(game: Game) -> int | None:
    """The seat offering to take its last move back, while the offer stands (issue 25)."""
    offer = game.takeback_offer or {}
    return offer.get("seat") if offer.get("turn") == game.turn else None


def list_for(session: Session, player: Player, which: str) -> list[dict[str, Any]]:
    """``mine`` (all my games), ``waiting`` (owing a move or orders; least time left first,
    each ``urgent`` under 24 hours), ``finished``, ``all``."""
    kinds = ("mine", "waiting", "finished", "active", "all")
    now = utcnow()
    if which not in kinds:
        raise BadRequest(N_("filter must be one of %(kinds)s"), values={"kinds": ", ".join(kinds)})
    query = select(Game).order_by(Game.id)
    if which == "all":
        if not player.has_role("td", "admin"):
            raise Forbidden(N_("only tournament directors and admins list every game"))
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
        if which == "waiting":
            if seat not in item["to_act"] or seat in item["submitted"]:
                continue
            deadline = item["deadline"]
            left = None if deadline is None else datetime.fromisoformat(deadline) - now
            item["urgent"] = left is not None and left < URGENT
        games.append(item)
    if which == "waiting":
        # least time left first, as the digest orders them; no deadline last
        games.sort(key=lambda item: (item["deadline"] is None, item["deadline"] or "", item["id"]))
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
        "result": public_result(game.result),
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
                "events": [{k: v for k, v in e.items() if k != "why"} for e in turn.events],
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
