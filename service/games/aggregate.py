"""One locked game: the only code that writes Game, Turn, Order, Step and LogEntry rows (issue 23).

:class:`LockedGame` holds the locked game row, its seats with their players (addresses and
vacations: the deadline and every mail need them), the engine state and the open turn, all
read in a few statements when it is loaded. Each public method checks, writes the rows and
returns typed events (:mod:`service.games.events`); it sends nothing and tells nobody: the
caller hands the events to :mod:`service.games.consequences` once the rows are written.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, or_, select, update
from sqlalchemy.orm import Session, joinedload, with_expression

import engine
import service.games.stepping as stepping  # not via the package, which imports this module
from engine import EngineError, Event, Outcome, State
from engine.errors import Nn_, Reason
from service import chain, clock, receipts
from service.db import work_of
from service.errors import BadRequest, Conflict, Forbidden, NotFound, from_engine
from service.games.events import (
    DeadlineChanged,
    DiceRolled,
    DirectorAct,
    DirectorActed,
    DrawNews,
    GameEnded,
    GameEvent,
    Moved,
    OrdersRevealed,
    OrdersSealed,
    OrdersWithdrawn,
    Started,
    TakebackNews,
    TakenBack,
    TurnReady,
    TurnResolved,
)
from service.i18n import N_
from service.leagues.models import League, Pairing
from service.models import (
    ChainLink,
    ConditionalMove,
    Game,
    GameStatus,
    LogEntry,
    Order,
    OrderStatus,
    Player,
    ResolvedBy,
    Seat,
    Step,
    Turn,
    Webhook,
)

Events = list[GameEvent]


def dice() -> Any:
    """The fair dice module (``engine/dice.py``)."""
    from engine import dice  # type: ignore[attr-defined,unused-ignore]

    return dice


def has_dice(state: State) -> bool:
    return type(state).chance_outcomes is not State.chance_outcomes


def result_text(game: Game) -> str:
    result = game.result or {}
    return f"{result.get('result', '?')} ({result.get('reason', '')})"


def game_over(game: Game) -> Conflict:
    """The one refusal of an action on a game that has ended."""
    return _said(GAME_OVER, "game_over", number=game.id, result=result_text(game))


GAME_OVER = N_("game %(number)s is over: %(result)s")
NO_TURN_YET = N_("there is no turn %(seen)s yet; it is turn %(turn)s")
TURN_OVER = N_("turn %(seen)s is over, it is now turn %(turn)s (%(status)s). Since then: %(since)s")
NOTHING_TO_REPORT = N_("nothing to report")
NO_TAKEBACKS = N_(
    "%(game)s has no takebacks: a move can be taken back only in a two-player game played "
    "move by move without dice (Epaminondas, Anti-Grid)"
)
NO_MOVE_TO_TAKE_BACK = N_("you have no move to take back in this game")
OPPONENT_MOVED = N_(
    "too late to take back your move: %(name)s has moved since (%(move)s); a move can be "
    "taken back only until the opponent replies"
)
TAKEBACK_ALREADY_OFFERED = N_("you have already offered to take back your last move")
NO_TAKEBACK_OFFER = N_("there is no takeback offer to answer: only your opponent can offer one")
TAKEBACK_LAPSED = N_(
    "the takeback offered in turn %(turn)s has lapsed: a move was played since; a move can "
    "be taken back only until the opponent replies"
)
TAKEBACK_OFFERED = N_("offered to take back their last move")
TAKEBACK_DECLINED = N_("declined the takeback")


def _said(message: str, code: str, translated: Sequence[str] = (), **values: Any) -> Conflict:
    """A refusal the player reads in their language (``ServiceError.localized``); the values
    ``translated`` names are texts of the catalog too."""

    def render(translate: Callable[[str], str], _plural: object = None) -> str:
        said = {name: translate(v) if name in translated else v for name, v in values.items()}
        return translate(message) % said

    return Conflict(message % values, code, render=render)


def state_of(game: Game) -> State:
    return engine.state_from_json(game.state)


def seat_of(game: Game, player: Player | None) -> int | None:
    if player is None:
        return None
    return next((seat.seat for seat in game.seats if seat.player_id == player.id), None)


def seated(game: Game, player: Player) -> int:
    seat = seat_of(game, player)
    if seat is None:
        raise Forbidden(
            N_("%(name)s does not play in game %(game)s"),
            values={"name": player.name, "game": game.id},
        )
    return seat


def current_turn(session: Session, game: Game) -> Turn | None:
    """The row of the game's turn: the one read with the locked game or opened since, if this
    unit of work has it (``db.Work.turns``), else read."""
    known: Turn | None = work_of(session).turns.get((game.id, game.turn))
    if known is not None:
        return known
    return session.scalar(select(Turn).where(Turn.game_id == game.id, Turn.number == game.turn))


def keep_turn(session: Session, turn: Turn | None) -> None:
    """Remember a turn row this unit of work read or opened (``db.Work.turns``)."""
    if turn is not None:
        work_of(session).turns[(turn.game_id, turn.number)] = turn


def losing(game: Game, seat: int, why: Reason) -> Outcome:
    """The seat loses; with more than two seats the others share first place."""
    places = tuple(2 if s == seat else 1 for s in range(game.players))
    return Outcome(places, why.render(), why=why)


def stored_result(outcome: Outcome) -> dict[str, Any]:
    """A game's result as its row keeps it: the outcome's JSON and its reason (``why``) where
    JSON can hold it, so that a page or mail says it in its reader's language."""
    why = outcome.why.to_json() if outcome.why is not None else None
    return outcome.to_json() | ({"why": why} if why is not None else {})


def public_result(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A stored result as records, the chain and the API show it: without its ``why``."""
    return None if result is None else {k: v for k, v in result.items() if k != "why"}


def lock_row(session: Session, game_id: int) -> Game:
    """The game row locked for this transaction, then read with everything its acts need,
    in two statements: its open turn, seats, seated players with their addresses and
    vacations (a few rows each), the step count, the league round its mails show, the
    chain's head, whether it has active conditional moves and whether it has webhooks. These
    are kept on the unit of work (:class:`service.db.Work`; issue 23).

    The lock is taken first, by itself: on PostgreSQL a statement that waits for a row lock
    returns that row as it is now, but every other row it reads as of its start, before the
    transaction we waited for committed (its new turn, steps, seats, chain link). The read
    after it starts after the lock is ours, so it sees all of them."""
    locked = session.scalar(
        select(Game.id).where(Game.id == game_id).with_for_update(key_share=True, of=Game)
    )
    if locked is None:
        raise NotFound(N_("there is no game %(id)s"), values={"id": game_id})
    row = session.execute(_reading(game_id)).unique().one()
    game: Game = row.Game
    work = work_of(session)
    league = (
        None
        if row.league_id is None
        else (row.league_id, row.league_name, row.round, row.max_game_days)
    )
    work.league_rounds[game.id] = league
    work.chain_heads[game.id] = None if row.head is None else (row.head, row.head_hash)
    work.conditionals[game.id] = bool(row.conditionals)
    work.webhooks[game.id] = bool(row.webhooks)
    keep_turn(session, game.open_turn)
    return game


_step_count = (
    select(func.count())
    .select_from(Step)
    .where(Step.game_id == Game.id)
    .correlate(Game)
    .scalar_subquery()
)


def _reading(game_id: int) -> Select[Any]:
    player = joinedload(Game.seats).joinedload(Seat.player)
    head = chain.head_query(game_id)
    pending = select(ConditionalMove.id).where(
        ConditionalMove.game_id == game_id, ConditionalMove.status == "active"
    )  # "active": service.conditional.ACTIVE (which builds on games)
    seated = select(Seat.player_id).where(Seat.game_id == game_id)
    hooked = select(Webhook.id).where(  # any webhook of its players or league (service.webhooks)
        or_(Webhook.player_id.in_(seated), Webhook.league_id == Pairing.league_id)
    )
    return (
        select(
            Game,
            League.id.label("league_id"),
            League.name.label("league_name"),
            Pairing.round,
            League.settings["max_game_days"].as_integer().label("max_game_days"),
            head.with_only_columns(ChainLink.number).scalar_subquery().label("head"),
            head.with_only_columns(ChainLink.hash).scalar_subquery().label("head_hash"),
            pending.exists().label("conditionals"),
            hooked.exists().label("webhooks"),
        )
        .outerjoin(Pairing, Pairing.game_id == Game.id)
        .outerjoin(League, League.id == Pairing.league_id)
        .where(Game.id == game_id)
        .options(
            with_expression(Game.steps_taken, _step_count),
            joinedload(Game.open_turn),
            player.joinedload(Player.emails),
            player.joinedload(Player.vacations),
        )
        .execution_options(populate_existing=True)
    )


class LockedGame:
    """A game whose row this transaction has locked; see the module's docstring."""

    def __init__(
        self, session: Session, game: Game, turn: Turn | None = None, steps: int | None = None
    ) -> None:
        self.session = session
        self.game = game
        self.state = state_of(game) if game.state else None
        if turn is None and game.turn:
            turn = current_turn(session, game)
        self.turn = turn
        self._steps = steps  # the number of step rows (read once when needed, if not given)
        self._moves: list[str] | None = None  # the move texts so far (the dice's input)

    @classmethod
    def load(cls, session: Session, game_id: int) -> LockedGame:
        game = lock_row(session, game_id)
        return cls(session, game, game.open_turn, game.steps_taken)

    @classmethod
    def new(cls, session: Session, game: Game) -> LockedGame:
        """A game row just added to the session (``create``, an import)."""
        session.flush()
        return cls(session, game)

    # -- rows, each built in one place --------------------------------------------------

    def log(
        self,
        kind: str,
        text: str,
        seat: int | None = None,
        *,
        turn: int | None = None,
        at: datetime | None = None,
    ) -> None:
        """A log entry of this turn (``turn`` and ``at``: an imported record's own)."""
        entry = LogEntry(
            game_id=self.game.id,
            turn=self.game.turn if turn is None else turn,
            kind=kind,
            seat=seat,
            text=text,
        )
        if at is not None:
            entry.at = at
        self.session.add(entry)

    def _order(
        self,
        seat: int,
        text: str,
        parsed: str,
        channel: str,
        status: OrderStatus,
        now: datetime,
        *,
        player_id: int | None,
        sealed: bool,
        receipt: str | None = None,
        salt: str | None = None,
        turn: int | None = None,
    ) -> Order:
        order = Order(
            game_id=self.game.id,
            turn=self.game.turn if turn is None else turn,
            seat=seat,
            player_id=player_id,
            text=text,
            parsed=parsed,
            channel=channel,
            sealed=sealed,
            status=status,
            receipt=receipt,
            receipt_salt=salt,
            created_at=now,
        )
        self.session.add(order)
        return order

    def _step(self, kind: str, seat: int | None, text: str, turn: int | None = None) -> None:
        if self._steps is None:
            count = select(func.count()).select_from(Step).where(Step.game_id == self.game.id)
            self._steps = self.session.scalar(count) or 0
        self.session.add(
            Step(
                game_id=self.game.id,
                number=self._steps,
                turn=self.game.turn if turn is None else turn,
                kind=kind,
                seat=seat,
                text=text,
            )
        )
        self._steps += 1
        if kind == "move" and self._moves is not None:
            self._moves.append(text)

    def _history(self) -> list[str]:
        if self._moves is None:
            query = select(Step.text).where(Step.game_id == self.game.id, Step.kind == "move")
            self._moves = list(self.session.scalars(query.order_by(Step.number)))
        return self._moves

    def _retire(self, status: OrderStatus, seats: Sequence[int] | None = None) -> None:
        """The current orders of this turn (of ``seats``) get ``status``: one statement."""
        query = update(Order).where(
            Order.game_id == self.game.id,
            Order.turn == self.game.turn,
            Order.status == OrderStatus.CURRENT,
        )
        if seats is not None:
            query = query.where(Order.seat.in_(list(seats)))
        self.session.execute(
            query.values(status=status), execution_options={"synchronize_session": "fetch"}
        )

    # -- checks ------------------------------------------------------------------------

    def _active(self) -> State:
        if self.game.status != GameStatus.ACTIVE or self.state is None:
            raise game_over(self.game)
        return self.state

    def check_turn(self, seen: Any) -> State:
        """Refuse a request made against a turn that has moved on, saying what changed."""
        game, state = self.game, self._active()
        if isinstance(seen, bool) or not isinstance(seen, int):
            raise BadRequest(N_("send the turn number you saw as 'turn' (a whole number)"))
        if seen == game.turn:
            return state
        if seen > game.turn or seen < 1:
            raise _said(NO_TURN_YET, "turn_mismatch", seen=seen, turn=game.turn)
        turns = self.session.scalars(
            select(Turn)
            .where(Turn.game_id == game.id, Turn.number >= seen, Turn.number < game.turn)
            .order_by(Turn.number)
        ).all()
        happened = "; ".join(event["text"] for turn in turns for event in turn.events)
        raise _said(
            TURN_OVER,
            "turn_moved_on",
            translated=() if happened else ("since",),
            seen=seen,
            turn=game.turn,
            status=state.status(),
            since=happened or NOTHING_TO_REPORT,
        )

    # -- starting ----------------------------------------------------------------------

    def start(self, state: State, actor: Player, title: str, now: datetime) -> Events:
        """The new game's first rows: the log, its first dice and its first turn."""
        game = self.game
        if has_dice(state):
            game.seed = secrets.token_bytes(32)
            game.commitment = dice().commitment(game.seed)
        out: Events = [Started(state)]
        self.log("created", f"{actor.name} created a game of {title}")
        if game.start_position is not None:
            self.log("position", f"Started from the position {game.start_position}")
        return out + self._advance(state, (), now, ResolvedBy.START)

    # -- moves and orders --------------------------------------------------------------

    def submit(self, player: Player, seen: Any, text: str, channel: str, now: datetime) -> Events:
        """Play a move (alternating games) or submit/replace sealed orders (sealed turns)."""
        seat = seated(self.game, player)
        state = self.check_turn(seen)
        if not state.simultaneous:
            return self.play(seat, player, text, channel, now)
        try:
            sealed = stepping.seal(state, seat, text)
        except EngineError as error:
            raise from_engine(error) from error
        game, new, parsed = self.game, sealed.state, sealed.text
        self._retire(OrderStatus.REPLACED, [seat])
        salt = secrets.token_hex(16)
        receipt = receipts.receipt(game.id, game.turn, seat, parsed, salt)
        self._order(
            seat, text, parsed, channel, OrderStatus.CURRENT, now,
            player_id=player.id, sealed=True, receipt=receipt, salt=salt,
        )  # fmt: skip
        game.state, self.state = new.to_json(), new
        name = new.game.seat_names[seat]
        self.log("orders", f"{name} submitted sealed orders (receipt {receipt})", seat)
        return [OrdersSealed(game.turn, seat, receipt), *self._ready_event()]

    def play(
        self,
        seat: int,
        player: Player,
        text: str,
        channel: str,
        now: datetime,
        note: Event | None = None,
    ) -> Events:
        """Apply an alternating move of ``seat`` (``note``: an event told before its own)."""
        state, game = self._active(), self.game
        try:
            played = stepping.play(state, seat, text)
        except EngineError as error:
            raise from_engine(error) from error
        parsed = played.text
        self._order(
            seat, text, parsed, channel, OrderStatus.PLAYED, now, player_id=player.id, sealed=False
        )
        self._step("move", seat, parsed)
        out: Events = [Moved(game.turn, seat, parsed, channel)]
        seat_row = game.seats[seat]
        seat_row.missed = 0
        bank = game.time_control["bank"]
        if bank and self.turn is not None and self.turn.deadline is not None:
            left = max(0.0, (self.turn.deadline - now).total_seconds())
            seat_row.bank_seconds = min(
                left + bank["increment_days"] * 86400, bank["max_days"] * 86400
            )
        told = (note, *played.told) if note is not None else played.told
        return out + self._advance(played.state, told, now, ResolvedBy.MOVE)

    def withdraw(self, player: Player, seen: Any) -> Events:
        seat = seated(self.game, player)
        state = self.check_turn(seen)
        if not state.simultaneous or state.orders_of(seat) is None:
            raise Conflict(N_("you have no sealed orders in this turn to withdraw"), "no_orders")
        self.state = stepping.withdraw(state, seat)
        self.game.state = self.state.to_json()
        self._retire(OrderStatus.WITHDRAWN, [seat])
        self.log("withdrawn", f"{state.game.seat_names[seat]} withdrew their orders", seat)
        return [OrdersWithdrawn(self.game.turn, seat)]

    def wait(self, player: Player, seen: Any, wait: bool) -> Events:
        """A seat may hold a sealed turn open until the deadline even once everyone is in."""
        seat = seated(self.game, player)
        state = self.check_turn(seen)
        turn = self.turn
        if not state.simultaneous or turn is None:
            raise Conflict(N_("only sealed turns wait for their deadline"), "not_sealed")
        others = [s for s in turn.waiting if s != seat]
        turn.waiting = sorted([*others, seat]) if wait else others
        return self._ready_event()

    def ready(self) -> bool:
        turn, state = self.turn, self.state
        if turn is None or state is None:
            return False
        return not turn.waiting and set(state.to_act) <= set(state.submitted())

    def _ready_event(self) -> Events:
        return [TurnReady(self.game.turn)] if self.ready() else []

    # -- resolving ---------------------------------------------------------------------

    def resolve(self, number: int, now: datetime) -> Events | None:
        """Resolve turn ``number`` if it is due (everyone in, or the deadline passed), once
        only; None when it is not (or no longer) due."""
        game, turn, state = self.game, self.turn, self.state
        if game.status != GameStatus.ACTIVE or game.turn != number or turn is None:
            return None
        if turn.resolved_at is not None or state is None:
            return None
        due = turn.deadline is not None and turn.deadline <= now
        if not state.simultaneous:
            if not due:
                return None
            seat = state.to_act[0]
            why = Reason(
                "lost_on_time", N_("{name} lost on time"), name=state.game.seat_names[seat]
            )
            return self.finish(losing(game, seat, why), now, ResolvedBy.TIME)
        if not (self.ready() or due):
            return None
        missing = [seat for seat in state.to_act if seat not in state.submitted()]
        forfeit_after = game.time_control["forfeit_after"]
        for seat in state.to_act:
            game.seats[seat].missed = game.seats[seat].missed + 1 if seat in missing else 0
            if forfeit_after and game.seats[seat].missed >= forfeit_after:
                why = Reason(
                    "forfeited",  # English says "turns" whatever the count
                    Nn_(
                        "{name} forfeited after {n} missed turns",
                        "{name} forfeited after {n} missed turns",
                    ),
                    name=state.game.seat_names[seat],
                    n=forfeit_after,
                )
                return self.finish(losing(game, seat, why), now, ResolvedBy.FORFEIT)
        current = self.session.scalars(
            select(Order)
            .where(
                Order.game_id == game.id,
                Order.turn == game.turn,
                Order.status == OrderStatus.CURRENT,
                Order.seat.in_(list(state.to_act)),
            )
            .order_by(Order.id)
        ).all()
        sent = {order.seat: order for order in current}  # the newest per seat
        for row in current:
            row.status = OrderStatus.RESOLVED
        resolved = stepping.resolve(state)
        out: Events = []
        for revealed in resolved.orders:
            seat, text = revealed.seat, revealed.text
            order: Order | None = None if revealed.default else sent.get(seat)
            if revealed.default:
                self._order(
                    seat, text, text, "deadline", OrderStatus.DEFAULT, now,
                    player_id=None, sealed=True,
                )  # fmt: skip
            self._step("move", seat, text)
            salt, receipt = (order.receipt_salt, order.receipt) if order else (None, None)
            out.append(OrdersRevealed(game.turn, seat, text, salt, receipt))
        by = ResolvedBy.DEADLINE if missing else ResolvedBy.ORDERS
        return out + self._advance(resolved.state, resolved.told, now, by)

    def _fair_roll(self, out: Events) -> stepping.Roll:
        """Live play's dice: each roll drawn from the seed, stepped and told in ``out``."""
        game = self.game

        def fair_roll(state: State) -> str:
            if game.seed is None:
                game.seed = secrets.token_bytes(32)
                game.commitment = dice().commitment(game.seed)
            game.rolls += 1  # rolls are numbered from 1 (engine/dice.py, step 2)
            outcome: str = dice().roll(
                game.seed, str(game.id), game.rolls, self._history(), state.chance_outcomes()
            )
            out.append(DiceRolled(game.turn, game.rolls, outcome))
            self._step("chance", None, outcome)
            return outcome

        return fair_roll

    def _advance(
        self, state: State, events: Sequence[Event], now: datetime, by: ResolvedBy
    ) -> Events:
        """After a step: roll any dice due, close this turn, then finish or open the next."""
        game, out = self.game, list[GameEvent]()
        state, told = stepping.advance(state, events, self._fair_roll(out))
        if self.turn is not None:
            self.turn.resolved_at, self.turn.resolved_by = now, by
            self.turn.events = [stored_event(event) for event in told]
        for event in told:
            self.log(event.kind, event.text, event.seat)
        game.draw_offers = self._standing_offers(state)
        game.state, self.state = state.to_json(), state
        if state.outcome is not None:
            out.append(TurnResolved(game.turn, by, state, tuple(told), None))
            return out + self.finish(state.outcome, now, by)
        game.turn += 1
        self.turn = self._turn(game.turn, state, now, self._deadline(state, now))
        out.append(TurnResolved(game.turn - 1, by, state, tuple(told), game.turn))
        return out

    def _turn(
        self,
        number: int,
        state: State,
        started: datetime,
        deadline: datetime | None,
        resolved: tuple[datetime | None, str | None, list[Any]] = (None, None, []),
    ) -> Turn:
        resolved_at, resolved_by, events = resolved
        turn = Turn(
            game_id=self.game.id,
            number=number,
            to_act=list(state.to_act),
            state=state.to_json(),
            phase="sealed" if state.simultaneous else "move",
            started_at=started,
            deadline=deadline,
            waiting=[],
            reminders_sent=[],
            resolved_at=resolved_at,
            resolved_by=resolved_by,
            events=events,
        )
        self.session.add(turn)
        return turn

    def _deadline(self, state: State, now: datetime) -> datetime:
        control = self.game.time_control
        seats = {seat.seat: seat for seat in self.game.seats}
        away = [
            clock.vacation_end([(v.starts, v.ends) for v in seats[s].player.vacations], now)
            for s in state.to_act
        ]
        start = max([now, *(end for end in away if end is not None)])
        bank = seats[state.to_act[0]].bank_seconds if not state.simultaneous else None
        days = bank / 86400 if bank is not None else control["days"]
        return clock.add_days(start, days, control["skip_weekends"])

    def _standing_offers(self, state: State) -> list[int]:
        """Offers that outlive a step: those of seats not to act next. An offer made with a
        move stands until the opponent has answered or moved; every other offer lapses."""
        if state.simultaneous or state.outcome is not None:
            return []
        return [seat for seat in self.game.draw_offers if seat not in state.to_act]

    # -- ending ------------------------------------------------------------------------

    def finish(self, outcome: Outcome, now: datetime, by: str) -> Events:
        """End the running game with ``outcome`` (a move, resignation, draw, time, forfeit, a
        director's result)."""
        state, game, turn = self._active(), self.game, self.turn
        if turn is not None and turn.resolved_at is None:
            turn.resolved_at, turn.resolved_by = now, by
            turn.events = [Event(outcome.reason, "end").to_json()]
        self._retire_all(OrderStatus.VOID)
        game.status, game.result, game.finished_at = (
            GameStatus.FINISHED,
            stored_result(outcome),
            now,
        )
        self.log("end", f"Game over: {outcome.result} ({outcome.reason})")
        return [GameEnded(game.turn, outcome, by, state, now)]

    def _retire_all(self, status: OrderStatus) -> None:
        self.session.execute(
            update(Order)
            .where(Order.game_id == self.game.id, Order.status == OrderStatus.CURRENT)
            .values(status=status),
            execution_options={"synchronize_session": "fetch"},
        )

    def resign(self, player: Player, now: datetime) -> Events:
        seat = seated(self.game, player)
        state = self._active()
        why = Reason("resigned", N_("{name} resigned"), name=state.game.seat_names[seat])
        return self.finish(losing(self.game, seat, why), now, ResolvedBy.RESIGN)

    def draw(self, player: Player, action: str, now: datetime) -> Events:
        """``offer``, ``accept``, ``decline`` or ``withdraw`` a draw (see ``games.draw``)."""
        game = self.game
        seat = seated(game, player)
        state = self._active()
        name = state.game.seat_names[seat]
        offers = list(game.draw_offers)
        others = [s for s in offers if s != seat]
        if action == "offer" and seat in offers:
            raise Conflict(N_("you have already offered a draw in this turn"), "already_offered")
        if action in ("accept", "decline") and not others:
            raise Conflict(
                N_("there is no draw offer to accept")
                if action == "accept"
                else N_("there is no draw offer to decline"),
                "no_offer",
            )
        if action not in ("offer", "accept", "decline", "withdraw"):
            raise BadRequest(N_("action must be offer, accept, decline or withdraw"))
        if action == "withdraw" and seat not in offers:
            raise Conflict(N_("you have no draw offer to withdraw"), "no_offer")
        if action in ("decline", "withdraw"):
            game.draw_offers = [] if action == "decline" else others
            verb = "declined the draw offer" if action == "decline" else "withdrew their draw offer"
            self.log("draw", f"{name} {verb}", seat)
            return [DrawNews(player, seat, verb, tuple(offers))]
        game.draw_offers = sorted([*offers, seat])
        verb = "offered" if action == "offer" and not others else "accepted"
        self.log("draw", f"{name} {verb} a draw", seat)
        if len(game.draw_offers) == game.players:
            agreed = Reason("draw_by_agreement", N_("draw by agreement"))
            outcome = Outcome.draw(game.players, agreed)
            return self.finish(outcome, now, ResolvedBy.DRAW)
        return [DrawNews(player, seat, f"{verb} a draw", tuple(offers))]

    # -- takebacks (issue 25) -----------------------------------------------------------

    def takeback(self, player: Player, action: str, now: datetime) -> Events:
        """``offer`` to take one's last move back, or ``accept`` / ``decline`` the offer made
        to one (see ``games.takeback``)."""
        game = self.game
        seat = seated(game, player)
        state = self._active()
        if action not in ("offer", "accept", "decline"):
            raise BadRequest("action must be offer, accept or decline")
        if state.simultaneous or has_dice(state) or game.players != 2:
            raise _said(NO_TAKEBACKS, "no_takebacks", game=state.game.title)
        name = state.game.seat_names[seat]
        offer = game.takeback_offer or {}
        standing = offer.get("turn") == game.turn
        if action == "offer":
            self._last_move_of(seat, state)
            if standing and offer.get("seat") == seat:
                raise _said(TAKEBACK_ALREADY_OFFERED, "already_offered")
            game.takeback_offer = {"seat": seat, "turn": game.turn}
            self.log("takeback", f"{name} offered to take back their last move", seat)
            return [TakebackNews(player, seat, TAKEBACK_OFFERED)]
        if not offer or offer.get("seat") == seat:
            raise _said(NO_TAKEBACK_OFFER, "no_offer")
        if not standing:
            raise _said(TAKEBACK_LAPSED, "offer_lapsed", turn=offer.get("turn"))
        if action == "decline":
            game.takeback_offer = None
            self.log("takeback", f"{name} declined the takeback", seat)
            return [TakebackNews(player, seat, TAKEBACK_DECLINED)]
        return self._take_back(int(offer["seat"]), state, now)

    def _last_move_of(self, seat: int, state: State) -> Step:
        """The game's last step, if it is ``seat``'s move of the turn before this one (which
        it closed); else the refusal saying why it cannot be taken back."""
        last = self.session.scalar(
            select(Step).where(Step.game_id == self.game.id).order_by(Step.number.desc()).limit(1)
        )
        if last is None or last.kind != "move" or last.seat is None:
            raise _said(NO_MOVE_TO_TAKE_BACK, "no_move")
        if last.seat != seat or last.turn != self.game.turn - 1:
            other = state.game.seat_names[last.seat]
            raise _said(OPPONENT_MOVED, "opponent_moved", name=other, move=last.text)
        return last

    def _take_back(self, seat: int, state: State, now: datetime) -> Events:
        """Undo ``seat``'s last move: the turn it closed is reopened as a new turn, from the
        position before it (turns are numbered on; the step row of the move goes, its order
        row is void, and the chain records the takeback as a link of its own)."""
        game, session = self.game, self.session
        step = self._last_move_of(seat, state)
        played_in = step.turn
        before_row = session.scalar(
            select(Turn).where(Turn.game_id == game.id, Turn.number == played_in)
        )
        if before_row is None:
            raise _said(NO_MOVE_TO_TAKE_BACK, "no_move")
        before = engine.state_from_json(before_row.state)
        text, name = step.text, state.game.seat_names[seat]
        session.execute(
            update(Order)
            .where(
                Order.game_id == game.id,
                Order.turn == played_in,
                Order.seat == seat,
                Order.status == OrderStatus.PLAYED,
            )
            .values(status=OrderStatus.VOID),
            execution_options={"synchronize_session": "fetch"},
        )
        session.delete(step)
        session.flush()
        if self._steps is not None:
            self._steps -= 1
        if self._moves:
            self._moves.pop()
        told = Event(f"{name} took back {text}", "takeback", seat)
        closed = game.turn
        if self.turn is not None:
            self.turn.resolved_at, self.turn.resolved_by = now, ResolvedBy.TAKEBACK
            self.turn.events = [told.to_json()]
        self.log("takeback", told.text, seat)
        game.draw_offers, game.takeback_offer = [], None
        game.state, self.state = before.to_json(), before
        game.turn += 1
        self.turn = self._turn(game.turn, before, now, self._deadline(before, now))
        return [TakenBack(played_in, seat, text, closed, game.turn, before)]

    def set_result(self, actor: str, outcome: Outcome, why: str, by: str, now: datetime) -> Events:
        """A director ends the running game with ``outcome``: the act, then the end."""
        acted = self._acted(
            actor, DirectorAct.SET_RESULT, {"result": outcome.to_json(), "reason": why}
        )
        return [acted, *self.finish(outcome, now, by)]

    def adjudicate_at_cap(self, now: datetime) -> Events:
        """The league's cap on a game's days is reached (issue 25 point 6): the engine decides
        the running game (its score, else a draw) and it ends; a game already over is left."""
        if self.game.status != GameStatus.ACTIVE:
            return []
        return self.finish(self._active().adjudicate_at_cap(), now, ResolvedBy.CAP)

    def correct_result(self, actor: str, outcome: Outcome, why: str) -> Events:
        """A director corrects the result of a finished game."""
        before = (self.game.result or {}).get("result")
        self.game.result = stored_result(outcome)
        self.log("corrected", f"Result corrected from {before} to {outcome.result}: {why}")
        detail = {"result": outcome.to_json(), "reason": why}
        return [self._acted(actor, DirectorAct.CORRECT_RESULT, detail)]

    def void(self, actor: str, why: str, now: datetime) -> Events:
        """A director voids the game: it counts for nobody."""
        game, turn = self.game, self.turn
        if turn is not None and turn.resolved_at is None:
            turn.resolved_at, turn.resolved_by = now, ResolvedBy.VOID
        self._retire_all(OrderStatus.VOID)
        game.status, game.finished_at = GameStatus.VOID, game.finished_at or now
        game.result = {"places": None, "result": "void", "reason": f"voided by the director: {why}"}
        self.log("void", f"{actor} voided the game: {why}")
        return [self._acted(actor, DirectorAct.VOID, {"result": game.result})]

    def _acted(self, actor: str, act: DirectorAct, detail: Any) -> DirectorActed:
        return DirectorActed(self.game.turn, actor, act, detail)

    # -- deadlines ---------------------------------------------------------------------

    def set_deadline(self, actor: str, when: datetime) -> Events:
        """A director moves the open turn's deadline; the seats still owing are told."""
        state, turn = self._active(), self.turn
        if turn is None:
            raise game_over(self.game)
        turn.deadline = when
        self.log("deadline", f"{actor} set the deadline to {when.isoformat()}")
        owing = set(turn.to_act) - set(state.submitted())
        players = tuple(seat.player for seat in self.game.seats if seat.seat in owing)
        return [DeadlineChanged(self.game.turn, when, actor, players)]

    def push_deadline(self, player: Player, ends: datetime, now: datetime) -> Events:
        """A vacation: move the open deadline back if it concerns the player on leave."""
        turn, seat = self.turn, seat_of(self.game, player)
        if turn is None or turn.deadline is None or turn.resolved_at is not None:
            return []
        if turn.phase == "sealed" or seat in turn.to_act:
            turn.deadline += max(timedelta(0), ends - now)
        self.log("vacation", f"{player.name} is on vacation until {ends.isoformat()}", seat)
        return [DeadlineChanged(self.game.turn, turn.deadline)]

    def open_deadline(self) -> datetime | None:
        """The open turn's deadline (None when there is none, or the turn is resolved)."""
        turn = self.turn
        return turn.deadline if turn is not None and turn.resolved_at is None else None

    def hold_clock(self, now: datetime) -> float | None:
        """A pause: lift the open turn's deadline; the seconds that were left (or None)."""
        turn = self.turn
        if turn is None or turn.deadline is None:
            return None
        remaining = max(0.0, (turn.deadline - now).total_seconds())
        turn.deadline = None
        return remaining

    def restart_clock(self, paused_turn: int, remaining: float | None, now: datetime) -> None:
        """A resume: give the paused turn back the time it had left, from now."""
        turn, game = self.turn, self.game
        same_turn = game.status == GameStatus.ACTIVE and game.turn == paused_turn
        if same_turn and turn and turn.resolved_at is None and turn.deadline is None:
            turn.deadline = None if remaining is None else now + timedelta(seconds=remaining)

    def extend_deadline(self, actor: str, days: float, why: str, *, paused: bool) -> Events:
        """A director adds ``days`` to the open deadline or, while the game is ``paused``, to
        the time its pause keeps (which the league adds: nothing of the game changes)."""
        turn = self.turn
        if paused:
            detail = f"+{days:g} days (paused): {why}"
        elif turn is not None and turn.deadline is not None:
            turn.deadline += timedelta(days=days)
            detail = f"{turn.deadline.isoformat()} (+{days:g} days): {why}"
        else:
            raise Conflict(
                N_("game %(id)s has no deadline to extend"),
                "no_deadline",
                values={"id": self.game.id},
            )
        self.log("deadline", f"{actor} extended the deadline by {days:g} days: {why}")
        return [self._acted(actor, DirectorAct.DEADLINE, detail)]

    def due_now(self, now: datetime) -> int:
        """Make the open sealed turn due now (a director's process-now); its number."""
        turn = self.turn
        if self.game.status != GameStatus.ACTIVE or turn is None or turn.phase != "sealed":
            raise Conflict(
                N_("game %(id)s has no sealed turn open"), "not_sealed", values={"id": self.game.id}
            )
        turn.deadline = now
        return turn.number

    def replace_seat(self, actor: str, seat: Seat, substitute: Player, why: str) -> Events:
        """A director gives ``seat`` to ``substitute`` (who plays in no other seat here)."""
        old = seat.player.name
        seat.player_id, seat.player, seat.missed = substitute.id, substitute, 0
        self.log("replaced", f"{substitute.name} takes over {old}'s seat: {why}")
        detail = {"seat": seat.seat, "player": substitute.name, "reason": why}
        return [self._acted(actor, DirectorAct.REPLACE, detail)]

    def paused(self, actor: str, why: str) -> Events:
        """A director paused the game: its clock was held (:meth:`hold_clock`; the league
        keeps the time that was left)."""
        self.log("paused", f"{actor} paused the game: {why}")
        return [self._acted(actor, DirectorAct.PAUSE, why)]

    def resumed(self, actor: str, why: str) -> Events:
        """A director resumed the game: its clock was restarted (:meth:`restart_clock`)."""
        self.log("resumed", f"{actor} resumed the game: {why}")
        return [self._acted(actor, DirectorAct.RESUME, why)]

    # -- reminders ---------------------------------------------------------------------

    def note_reminders(self, hours: Sequence[float]) -> None:
        turn = self.turn
        if turn is not None:
            turn.reminders_sent = sorted({*turn.reminders_sent, *hours})

    # -- importing a record ----------------------------------------------------------------

    def restore_step(self, kind: str, seat: int | None, text: str, turn: int) -> None:
        """One step of an imported record, replayed by ``records.replay`` first."""
        self._step(kind, None if kind == "chance" else seat, text, turn)

    def restore_turn(
        self,
        number: int,
        state: State,
        started: datetime,
        deadline: datetime | None,
        resolved: tuple[datetime | None, str | None, list[Any]],
    ) -> None:
        """A turn of an imported record, at the state the replay reached at its start."""
        self._turn(number, state, started, deadline, resolved)

    def restore_order(
        self,
        turn: int,
        seat: int,
        text: str,
        parsed: str,
        channel: str,
        status: str,
        at: datetime,
        *,
        sealed: bool,
        receipt: str | None = None,
        salt: str | None = None,
    ) -> None:
        """An order of an imported record (its status, receipt and salt as recorded)."""
        player_id = next((s.player_id for s in self.game.seats if s.seat == seat), None)
        self._order(
            seat, text, parsed, channel, OrderStatus(status), at,
            player_id=player_id, sealed=sealed, receipt=receipt, salt=salt, turn=turn,
        )  # fmt: skip


def stored_event(event: Event) -> dict[str, Any]:
    """A turn's event as its row keeps it: the record's ``text``, ``kind`` and ``seat``, and
    its reason (``why``) where JSON can hold it, so that a mail written later (the digest)
    says it in its reader's language. Records and the API show the first three only."""
    why = event.why.to_json() if event.why is not None else None
    return event.to_json() | ({"why": why} if why is not None else {})
