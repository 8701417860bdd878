"""Issue 23: a locked game (``service.games.aggregate.LockedGame``) is the one writer of a
game's rows; each method returns typed events and tells nobody itself: the chain, mail,
leagues and conditional moves follow from ``service.games.consequences.hand_off``."""

from __future__ import annotations

import ast
import os
import random
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from engine import Outcome, Termination
from service import chain, db, games, players, records
from service.errors import Conflict
from service.games.aggregate import LockedGame
from service.games.events import (
    DeadlineChanged,
    DiceRolled,
    DirectorActed,
    DrawNews,
    GameEnded,
    GameEvent,
    Moved,
    OrdersRevealed,
    OrdersSealed,
    OrdersWithdrawn,
    TurnReady,
    TurnResolved,
)
from service.models import (
    ChainLink,
    GameStatus,
    Order,
    OrderStatus,
    Outbox,
    Player,
    ResolvedBy,
    Step,
    Turn,
    utcnow,
)

ROOT = Path(__file__).resolve().parents[2]
CONSEQUENCES = Path("service/games/consequences.py")


def two_players(database: db.Database) -> tuple[int, int]:
    with database.transaction() as session:
        a, _ = players.create(session, None, {"name": "Ann", "emails": ["ann@example.org"]})
        b, _ = players.create(session, None, {"name": "Ben", "emails": ["ben@example.org"]})
        return a.id, b.id


def new_game(database: db.Database, name: str) -> tuple[int, int, int]:
    a, b = two_players(database)
    with database.transaction() as session:
        game = games.create(session, session.get_one(Player, a), {"game": name, "seats": [a, b]})
        return game.id, a, b


def kinds(events: Sequence[object]) -> list[str]:
    return [type(event).__name__ for event in events]


def test_a_move_returns_moved_and_turn_resolved_and_hands_off_nothing_itself(
    database: db.Database,
) -> None:
    game_id, a, _b = new_game(database, "countdown")
    with database.transaction() as session:
        links = session.scalar(select(func.count()).select_from(ChainLink)) or 0
        mails = session.scalar(select(func.count()).select_from(Outbox)) or 0
        aggregate = LockedGame.load(session, game_id)
        events = aggregate.submit(session.get_one(Player, a), 1, "take 2", "api", utcnow())
        assert kinds(events) == ["Moved", "TurnResolved"]
        moved, resolved = events
        assert isinstance(moved, Moved) and (moved.turn, moved.seat, moved.text) == (1, 0, "take 2")
        assert isinstance(resolved, TurnResolved)
        assert (resolved.number, resolved.by, resolved.opened) == (1, ResolvedBy.MOVE, 2)
        # the rows are written; the chain and the mail wait for the hand-off
        assert aggregate.game.turn == 2
        assert session.scalar(select(func.count()).select_from(ChainLink)) == links
        assert session.scalar(select(func.count()).select_from(Outbox)) == mails
        games.apply(session, aggregate, events, utcnow())
        assert session.scalar(select(func.count()).select_from(ChainLink)) == links + 1
        assert (session.scalar(select(func.count()).select_from(Outbox)) or 0) > mails


def test_sealed_orders_events_from_sealing_to_resolution(database: db.Database) -> None:
    game_id, a, b = new_game(database, "duel")
    now = utcnow()
    with database.transaction() as session:
        ann, ben = session.get_one(Player, a), session.get_one(Player, b)
        aggregate = LockedGame.load(session, game_id)
        first = aggregate.submit(ann, 1, "3", "api", now)
        assert kinds(first) == ["OrdersSealed"]
        assert isinstance(first[0], OrdersSealed) and first[0].seat == 0
        assert kinds(aggregate.withdraw(ann, 1)) == ["OrdersWithdrawn"]
        aggregate.submit(ann, 1, "2", "api", now)
        both = aggregate.submit(ben, 1, "1", "api", now)
        assert kinds(both) == ["OrdersSealed", "TurnReady"]
        assert isinstance(both[1], TurnReady) and both[1].turn == 1
        resolved = aggregate.resolve(1, now)
        assert resolved is not None
        assert kinds(resolved) == ["OrdersRevealed", "OrdersRevealed", "TurnResolved"]
        revealed = [e for e in resolved if isinstance(e, OrdersRevealed)]
        receipts = {e.seat: e.receipt for e in first + both if isinstance(e, OrdersSealed)}
        assert [(e.seat, e.text) for e in revealed] == [(0, "2"), (1, "1")]
        assert revealed[1].receipt == receipts[1] and revealed[1].salt
        assert aggregate.resolve(1, now) is None  # once only
        statuses = session.scalars(
            select(Order.status).where(Order.game_id == game_id).order_by(Order.id)
        ).all()
        assert statuses == [OrderStatus.WITHDRAWN, OrderStatus.RESOLVED, OrderStatus.RESOLVED]
        assert isinstance(first[0], OrdersSealed) and not isinstance(first[0], OrdersWithdrawn)


def test_dice_are_rolled_as_events_in_order(database: db.Database) -> None:
    game_id, a, _b = new_game(database, "dicecountdown")
    with database.transaction() as session:
        aggregate = LockedGame.load(session, game_id)
        state = aggregate.state
        assert state is not None
        text = games.legal_texts(state, 0)[0]
        events = aggregate.submit(session.get_one(Player, a), 1, text, "api", utcnow())
        assert kinds(events)[0] == "Moved" and "DiceRolled" in kinds(events)
        rolls = [e.roll for e in events if isinstance(e, DiceRolled)]
        assert rolls == sorted(rolls) and rolls[0] == 2  # roll 1 came with the start


def test_ending_a_game_is_one_game_ended_event(database: db.Database) -> None:
    game_id, a, b = new_game(database, "countdown")
    now = utcnow()
    with database.transaction() as session:
        ann, ben = session.get_one(Player, a), session.get_one(Player, b)
        aggregate = LockedGame.load(session, game_id)
        assert kinds(aggregate.draw(ann, "offer", now)) == ["DrawNews"]
        news = aggregate.draw(ben, "decline", now)
        assert isinstance(news[0], DrawNews) and news[0].offers == (0,)
        ended = aggregate.resign(ben, now)
        assert kinds(ended) == ["GameEnded"]
        assert isinstance(ended[0], GameEnded) and ended[0].by == ResolvedBy.RESIGN
        assert ended[0].outcome.places == (1, 2)
        assert aggregate.game.status == GameStatus.FINISHED
        refused = None
        try:
            aggregate.resign(ann, now)
        except Exception as error:  # the one "game over" refusal
            refused = error
        assert refused is not None and getattr(refused, "code", None) == "game_over"


def test_a_directors_deadline_is_a_deadline_changed_event_naming_who_owes(
    database: db.Database,
) -> None:
    game_id, a, _b = new_game(database, "duel")
    when = utcnow() + timedelta(days=3)
    with database.transaction() as session:
        aggregate = LockedGame.load(session, game_id)
        events = aggregate.set_deadline("Dee", when)
        assert len(events) == 1 and isinstance(events[0], DeadlineChanged)
        assert events[0].actor == "Dee" and events[0].deadline == when
        assert {p.id for p in events[0].owing} == {a, _b}


NOW = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
DEADLINE = datetime(2040, 1, 31, 12, 0, tzinfo=UTC)


def director_act(
    database: db.Database, game_id: int, act: Callable[[LockedGame], Sequence[GameEvent]]
) -> tuple[list[GameEvent], list[tuple[str, dict[str, Any]]]]:
    """Run one act on the locked game and hand its events off: the events, and the links the
    hand-off wrote (the act itself writes none)."""
    with database.transaction() as session:
        head = session.scalar(select(func.count()).where(ChainLink.game_id == game_id)) or 0
        aggregate = LockedGame.load(session, game_id)
        events = list(act(aggregate))
        assert session.scalar(select(func.count()).where(ChainLink.game_id == game_id)) == head
        games.apply(session, aggregate, events, NOW)
        links = session.scalars(
            select(ChainLink)
            .where(ChainLink.game_id == game_id, ChainLink.number >= head)
            .order_by(ChainLink.number)
        ).all()
        return events, [(link.kind, dict(link.data)) for link in links]


def test_each_director_act_returns_its_event_and_the_chain_writes_its_one_link(
    database: db.Database,
) -> None:
    """The seven acts of ``service.leagues.director``, each with the link data the chain has
    always recorded for it (``turn``, ``actor``, ``action``, ``detail``); the exported chain
    still verifies."""
    game_id, _a, b = new_game(database, "duel")
    with database.transaction() as session:
        c, _ = players.create(session, None, {"name": "Cat", "emails": ["cat@example.org"]})
        cat = c.id
    director_act(database, game_id, lambda g: g.set_deadline("Dee", DEADLINE))
    extended = (DEADLINE + timedelta(days=1.5)).isoformat()
    result = {"places": [1, 2], "reason": "set: r", "result": "1-0", "termination": "adjudication"}
    corrected = {**result, "places": [2, 1], "result": "0-1", "reason": "fixed: s"}
    void = {"places": None, "result": "void", "reason": "voided by the director: v"}

    def replace(game: LockedGame) -> Sequence[GameEvent]:
        seat = next(s for s in game.game.seats if s.player_id == b)
        return game.replace_seat("Dee", seat, game.session.get_one(Player, cat), "left")

    def outcome(places: tuple[int, ...], reason: str) -> Outcome:
        return Outcome(places, reason, Termination.ADJUDICATION)

    acts: list[tuple[Callable[[LockedGame], Sequence[GameEvent]], str, Any]] = [
        (lambda g: g.paused("Dee", "p"), "pause", "p"),
        (
            lambda g: g.extend_deadline("Dee", 2, "e", paused=True),
            "deadline",
            "+2 days (paused): e",
        ),
        (lambda g: g.resumed("Dee", "q"), "resume", "q"),
        (
            lambda g: g.extend_deadline("Dee", 1.5, "e", paused=False),
            "deadline",
            f"{extended} (+1.5 days): e",
        ),
        (replace, "replace", {"seat": 1, "player": "Cat", "reason": "left"}),
        (
            lambda g: g.set_result("Dee", outcome((1, 2), "set: r"), "r", ResolvedBy.DIRECTOR, NOW),
            "set_result",
            {"result": result, "reason": "r"},
        ),
        (
            lambda g: g.correct_result("Dee", outcome((2, 1), "fixed: s"), "s"),
            "correct_result",
            {"result": corrected, "reason": "s"},
        ),
        (lambda g: g.void("Dee", "v", NOW), "void", {"result": void}),
    ]
    for act, action, detail in acts:
        events, links = director_act(database, game_id, act)
        acted = events[0]
        assert isinstance(acted, DirectorActed), action
        assert (acted.turn, acted.actor, acted.act, acted.detail) == (1, "Dee", action, detail)
        data = {"turn": 1, "actor": "Dee", "action": action, "detail": detail}
        assert links[0] == ("director", data)
        assert list(links[0][1]) == ["turn", "actor", "action", "detail"]  # as stored before
        if action == "set_result":  # the director's act, then the end it gives
            assert kinds(events) == ["DirectorActed", "GameEnded"]
            assert [kind for kind, _ in links] == ["director", "end"]
        else:
            assert kinds(events) == ["DirectorActed"] and len(links) == 1
    with database.transaction() as session:
        report = chain.verify(records.export(session, game_id))
        assert report.ok, report.summary()


def test_no_deadline_to_extend_is_refused_before_anything_is_written(
    database: db.Database,
) -> None:
    game_id, _a, _b = new_game(database, "duel")
    with database.transaction() as session:
        aggregate = LockedGame.load(session, game_id)
        aggregate.hold_clock(NOW)
        with pytest.raises(Conflict) as refused:
            aggregate.extend_deadline("Dee", 1, "e", paused=False)
        assert refused.value.code == "no_deadline"


def test_only_the_chain_and_the_hand_off_write_chain_links() -> None:
    """A director's act, like a move, is an event; ``consequences._chain`` writes its link."""
    writers = {"director", "append", "append_all"}
    found = []
    for path in (ROOT / "service").rglob("*.py"):
        if path.relative_to(ROOT) in {Path("service/chain.py"), CONSEQUENCES}:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "chain"
                and node.attr in writers
            ) or (
                isinstance(node, ast.ImportFrom)
                and node.module == "service.chain"
                and any(alias.name in writers for alias in node.names)
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_only_the_aggregate_builds_game_rows() -> None:
    """Order, Step, Turn and LogEntry rows are built in ``aggregate.py`` alone: live play, the
    directors' tools and the import of a record (``records`` stores through ``restore_*``)."""
    builders = {"Order", "Step", "Turn", "LogEntry"}
    found = []
    for path in (ROOT / "service").rglob("*.py"):
        if path.name == "aggregate.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            if called and node.func.id in builders:  # type: ignore[attr-defined]
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")  # type: ignore[attr-defined]
    assert found == []


def test_the_game_over_refusal_is_written_once() -> None:
    texts = [
        path.relative_to(ROOT)
        for path in (ROOT / "service").rglob("*.py")
        if "is over: %(" in path.read_text() or "is over: {" in path.read_text()
    ]
    assert texts == [Path("service/games/aggregate.py")]


def test_no_private_games_helper_is_called_from_outside_the_package() -> None:
    outside = [
        path.relative_to(ROOT)
        for path in (ROOT / "service").rglob("*.py")
        if "games/" not in str(path.relative_to(ROOT)) and "games._" in path.read_text()
    ]
    assert outside == []


def rows_of(session: Session, game_id: int) -> dict[str, list[tuple[object, ...]]]:
    steps = session.scalars(select(Step).where(Step.game_id == game_id).order_by(Step.number))
    turns = session.scalars(select(Turn).where(Turn.game_id == game_id).order_by(Turn.number))
    orders = session.scalars(select(Order).where(Order.game_id == game_id).order_by(Order.id))
    return {
        "steps": [(s.number, s.turn, s.kind, s.seat, s.text) for s in steps],
        "turns": [(t.number, t.phase, t.to_act, t.state, t.resolved_by, t.events) for t in turns],
        "orders": [(o.turn, o.seat, o.parsed, o.status, o.sealed, o.receipt) for o in orders],
    }


def test_an_imported_record_is_stored_by_the_aggregate_with_the_rows_of_live_play(
    database: db.Database,
) -> None:
    """Export a played game and import it again (as a new game): the steps, turns and
    orders the aggregate restores are those live play wrote."""
    game_id, a, b = new_game(database, "countdown")
    with database.transaction() as session:
        games.submit(session, game_id, session.get_one(Player, a), 1, "take 2")
    with database.transaction() as session:
        games.submit(session, game_id, session.get_one(Player, b), 2, "take 1")
    duel_id = games_of(database, "duel", a, b)
    with database.transaction() as session:
        games.submit(session, duel_id, session.get_one(Player, a), 1, "2")
    with database.transaction() as session:
        games.submit(session, duel_id, session.get_one(Player, b), 1, "1")
    for played in (game_id, duel_id):
        with database.transaction() as session:
            record = records.export(session, played)
            imported = records.import_record(session, record, None).id
            assert imported != played
            assert rows_of(session, imported) == rows_of(session, played)


def games_of(database: db.Database, name: str, a: int, b: int) -> int:
    with database.transaction() as session:
        game = games.create(session, session.get_one(Player, a), {"game": name, "seats": [a, b]})
        return game.id


STEPPING = {"play", "submit", "resolve", "withdraw", "apply_chance", "default_action"}
"""The engine's stepping methods: only ``service/games/stepping.py`` calls them for the game
(live play and the replay of a record step through it)."""


def test_live_play_and_the_replay_of_a_record_step_only_through_stepping() -> None:
    """``LockedGame`` and ``records.replay`` call no engine stepping method themselves: a
    change to how a turn is stepped is made once, in ``games.stepping``."""
    found = []
    for path in (ROOT / "service/games/aggregate.py", ROOT / "service/records.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            receiver = node.func.value
            ours = isinstance(receiver, ast.Name) and receiver.id in ("stepping", "self")
            if node.func.attr in STEPPING and not ours:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.func.attr}(")
    assert found == []


FIVE = [
    ("epaminondas", {"board": "8x8"}),
    ("anti-grid", {"board": "small"}),
    ("elasta", {}),
    ("nelaxtam", {"size": "8"}),
    ("elemento", {}),
]


def play_randomly(database: db.Database, game_id: int, seats: list[int], turns: int) -> None:
    """Random legal moves through ``games.submit``, every seat that owes one in each turn but
    in the third of a sealed game, whose deadline passes with the second seat's missing."""
    with database.transaction() as session:  # the same game whatever ids the run gave out
        rng = random.Random(f"replay-{games.get(session, game_id).name}")
    for number in range(turns):
        with database.transaction() as session:
            game = games.get(session, game_id)
            if game.status != GameStatus.ACTIVE:
                return
            state, turn = games.state_of(game), game.turn
            owing = [s for s in state.to_act if not (state.simultaneous and number == 2 and s)]
            texts = {s: state.format(state.random_action(s, rng)) for s in owing}
        for seat, text in texts.items():
            with database.transaction() as session:
                player = session.get_one(Player, seats[seat])
                games.submit(session, game_id, player, turn, text)
        if len(owing) < len(state.to_act):
            with database.transaction() as session:
                assert games.resolve_turn(session, game_id, turn, utcnow() + timedelta(days=90))


@pytest.mark.parametrize(("name", "options"), FIVE, ids=[name for name, _ in FIVE])
def test_the_verifier_replays_a_live_game_to_the_same_states_turn_by_turn(
    database: db.Database, name: str, options: dict[str, str]
) -> None:
    """Play a game live, export it and replay the record as the verifier and the import do:
    each turn opens at the state live play stored for it, the steps fall in the same turns and
    the replay ends at the game's state."""
    a, b = two_players(database)
    with database.transaction() as session:
        data = {"game": name, "options": options, "seats": [a, b]}
        game_id = games.create(session, session.get_one(Player, a), data).id
    play_randomly(database, game_id, [a, b], 12)
    with database.transaction() as session:
        record = records.export(session, game_id)
        game = games.get(session, game_id)
        turns = session.scalars(select(Turn).where(Turn.game_id == game_id).order_by(Turn.number))
        live = [turn.state for turn in turns]
        steps = session.scalars(select(Step).where(Step.game_id == game_id).order_by(Step.number))
        step_turns = [step.turn for step in steps]
        final = game.state
    rules = engine.new_game(record["game"], record["options"], record["players"])
    run = records.replay(rules, record)
    assert len(live) >= 6
    assert [state.to_json() for state in run.turn_states] == live
    assert run.step_turns == step_turns
    assert run.state.to_json() == final
    assert run.rolls == sum(step["kind"] == "chance" for step in record["steps"])
    assert run.rolls > 0 if name == "elemento" else run.rolls == 0
    defaults = [order for order in record["orders"] if order["status"] == OrderStatus.DEFAULT]
    assert len(defaults) == (1 if rules.initial_state().simultaneous else 0)


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgresql"),
    reason="waiting for a row lock is PostgreSQL's (SQLite serialises whole transactions)",
)
def test_a_game_loaded_after_waiting_for_its_lock_sees_what_the_holder_wrote(
    database: db.Database,
) -> None:
    """On PostgreSQL a statement that waits for a row lock sees the other rows it reads as of
    its start: the turn, steps and chain link the lock's holder wrote must still be seen."""
    game_id, a, b = new_game(database, "countdown")
    holding, loaded = threading.Event(), {}

    def hold_and_move() -> None:
        with database.transaction() as session:
            aggregate = LockedGame.load(session, game_id)
            events = aggregate.submit(session.get_one(Player, a), 1, "take 2", "api", utcnow())
            games.apply(session, aggregate, events, utcnow())
            holding.set()
            time.sleep(0.5)  # the other transaction is waiting for the lock by now

    def wait_and_load() -> None:
        holding.wait()
        with database.transaction() as session:
            aggregate = LockedGame.load(session, game_id)
            turn = aggregate.turn
            loaded.update(
                turn=aggregate.game.turn,
                open_turn=None if turn is None else (turn.number, turn.resolved_at),
                steps=aggregate.game.steps_taken,
                head=db.work_of(session).chain_heads[game_id],
            )

    threads = [threading.Thread(target=hold_and_move), threading.Thread(target=wait_and_load)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    with database.transaction() as session:
        steps = session.scalar(select(func.count()).where(Step.game_id == game_id))
        newest = session.execute(chain.head_query(game_id)).one()
    assert loaded == {
        "turn": 2,
        "open_turn": (2, None),
        "steps": steps,
        "head": (newest.number, newest.hash),
    }
    assert b  # both seated: the move was Ann's
