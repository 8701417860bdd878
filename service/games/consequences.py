"""What follows from a game's events, all in one place (issue 23; this replaced ``hooks.py``).

After a :class:`~service.games.aggregate.LockedGame` method has written the game's rows, the
unit of work passes its events here, in the same transaction, and each consumer reacts in
this order:

1. the chain (``service.chain``): one link per step, takeback, director act and end, in
   event order,
   written first because every mail names the newest link;
2. the resolve task, when a sealed turn is complete;
3. notifications (``service.notify``): turn results, the end, draw and takeback news, new
   deadlines;
4. webhooks (``service.webhooks.game_events``): one delivery per hook and public event, sent
   after commit;
5. leagues (``service.leagues.leagues.game_finished``): rate the game, record the result,
   queue the league's next step;
6. conditional moves (``service.conditional.after_step``), after an alternating move a
   player sent: they may answer it at once (their answers come back here, without step 6).

Leagues and conditional moves build on ``service.games``; they are imported inside
:func:`hand_off`, not at the top, so that importing ``service.games`` does not import them
(the only import circle of the service, and it is this one on purpose: see
``tests/service/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import chain, notify, reader, receipts, webhooks
from service.db import enqueue, work_of
from service.games import queries
from service.games.events import (
    DeadlineChanged,
    DiceRolled,
    DirectorActed,
    DrawNews,
    GameEnded,
    GameEvent,
    Moved,
    OrdersRevealed,
    Started,
    TakebackNews,
    TakenBack,
    TurnReady,
    TurnResolved,
)
from service.i18n import N_
from service.models import ConditionalMove, Game, ResolvedBy
from service.tasks import Task

RESOLVE_TASK = Task.RESOLVE_TURN
TAKEN_BACK = N_("took back their last move, with their opponent's consent")


def hand_off(
    session: Session,
    game: Game,
    events: Sequence[GameEvent],
    now: datetime,
    *,
    answers: bool = True,
) -> None:
    """Every consequence of ``events``; ``answers``: let conditional moves answer a move."""
    if not events:
        return
    _chain(session, game, events)
    for event in events:
        if isinstance(event, TurnReady):
            enqueue(session, RESOLVE_TASK, game.id, event.turn)
    _last_move(session, game, events)
    _notify(session, game, events)
    webhooks.game_events(session, game, events)
    ended = [event for event in events if isinstance(event, GameEnded)]
    if ended:
        # leagues import games: imported here, when a game ends, not when games is imported
        from service.leagues import leagues

        for end in ended:
            leagues.game_finished(session, game, end.outcome, end.by, end.at)
    if answers and any(isinstance(event, Moved) for event in events):
        # conditional moves build on games (they play through it): imported here for that
        from service import conditional

        conditional.after_step(session, game, now)


def _chain(session: Session, game: Game, events: Sequence[GameEvent]) -> None:
    links: list[tuple[str, dict[str, Any]]] = []
    for event in events:
        if isinstance(event, Started):
            links.append(("start", chain.start_data(game)))
        elif isinstance(event, Moved):
            links.append(("move", {"turn": event.turn, "seat": event.seat, "text": event.text}))
        elif isinstance(event, OrdersRevealed):
            data = {"seat": event.seat, "text": event.text, "salt": event.salt}
            links.append(("orders", {"turn": event.turn, **data, "receipt": event.receipt}))
        elif isinstance(event, DiceRolled):
            links.append(
                ("roll", {"turn": event.turn, "roll": event.roll, "outcome": event.outcome})
            )
        elif isinstance(event, TakenBack):
            data = {"turn": event.closed, "seat": event.seat, "text": event.text}
            links.append(("takeback", {**data, "played_in": event.turn}))
        elif isinstance(event, DeadlineChanged) and event.actor is not None:
            detail = event.deadline.isoformat() if event.deadline else None
            links.append(("director", chain.director_data(event.actor, "deadline", detail)))
        elif isinstance(event, DirectorActed):
            data = chain.director_data(event.actor, event.act.value, event.detail)
            links.append(("director", {"turn": event.turn, **data}))
        elif isinstance(event, GameEnded):
            links.append(
                (
                    "end",
                    {"turn": event.turn, **chain.end_data(game, event.by, event.outcome.to_json())},
                )
            )
    if links:
        _read_once(session, game)
        chain.append_all(session, game, links)


def _read_once(session: Session, game: Game) -> None:
    """The chain's head, whether the game has active conditional moves and whether it has
    webhooks (of its players or league), in one statement
    (issue 23). Read now, not with the game's lock: another transaction may have written
    either while we waited for the lock, which that statement's snapshot does not show."""
    work = work_of(session)
    if game.id in work.chain_heads:
        return
    pending = select(ConditionalMove.id).where(
        ConditionalMove.game_id == game.id, ConditionalMove.status == "active"
    )  # "active": service.conditional.ACTIVE (which builds on games)
    hooks = webhooks.exists_for(game.id).label("webhooks")
    row = chain.read_head(session, game, pending.exists().label("conditionals"), hooks)
    work.conditionals[game.id] = bool(row.conditionals)
    work.webhooks[game.id] = bool(row.webhooks)


def _last_move(session: Session, game: Game, events: Sequence[GameEvent]) -> None:
    """The mails' last move is the one these events played, if they played one: told to the
    reader from the events (``reader.moved``) rather than read back from the step rows."""
    played = [event for event in events if isinstance(event, Moved | OrdersRevealed)]
    if played:
        number = played[-1].turn
        moves = [(event.seat, event.text) for event in played if event.turn == number]
        reader.moved(session, game, number, moves)


def _orders_seen(
    game: Game, events: Sequence[GameEvent], resolved: TurnResolved
) -> list[notify.OrderSeen] | None:
    """The order rows of the resolved turn, as its events tell them (so the mails need not
    read them back), or None when the events do not tell all of them for certain.

    A move wrote one row, played. A sealed turn: a seat the deadline supplied has a
    ``default`` event and a row with its text; a seat's own orders were revealed with their
    salt and receipt, and the receipt proves the text is the row's."""
    number = resolved.number
    if resolved.by == ResolvedBy.MOVE:
        moves = [event for event in events if isinstance(event, Moved) and event.turn == number]
        if len(moves) != 1:
            return None
        return [notify.OrderSeen(moves[0].seat, moves[0].text, moves[0].channel, "played")]
    if resolved.by not in (ResolvedBy.ORDERS, ResolvedBy.DEADLINE):
        return None
    defaults = {event.seat for event in resolved.told if event.kind == "default"}
    seen = []
    for event in events:
        if not isinstance(event, OrdersRevealed) or event.turn != number:
            continue
        if event.seat in defaults and event.salt is None and event.receipt is None:
            seen.append(notify.OrderSeen(event.seat, event.text, "deadline", "default"))
        elif event.salt is not None and event.receipt == receipts.receipt(
            game.id, number, event.seat, event.text, event.salt
        ):
            seen.append(
                notify.OrderSeen(event.seat, event.text, "", "resolved", event.receipt, event.salt)
            )
        else:
            return None
    return seen


def _notify(session: Session, game: Game, events: Sequence[GameEvent]) -> None:
    for event in events:
        if isinstance(event, Started):
            notify.started(session, game)
        elif isinstance(event, TurnResolved) and event.opened is not None and event.by != "start":
            known = _orders_seen(game, events, event)
            notify.turn_result(session, game, event.state, event.told, event.number, known)
        elif isinstance(event, GameEnded):
            reason = f"{event.outcome.result} ({event.outcome.reason})"
            notify.ended(
                session,
                game,
                event.state,
                reason,
                lambda reader: queries.text_record(session, game, reader),
            )
        elif isinstance(event, DeadlineChanged) and event.deadline is not None:
            for player in event.owing:
                notify.your_turn(session, game, player, event.deadline)
        elif isinstance(event, DrawNews):
            notify.draw_news(session, game, event.seat, event.news)
        elif isinstance(event, TakebackNews):
            notify.takeback_news(session, game, event.seat, event.news)
        elif isinstance(event, TakenBack):
            notify.takeback_news(session, game, event.seat, TAKEN_BACK, event.text, everyone=True)
