"""A game's record out of one service and into another (``pbem game export`` / ``import``).

The export is the JSON record (``games.record`` as a spectator sees it) plus an ``export``
section with what only the operator may carry: the players' addresses, each seat's clock,
the sealed orders of the open turn and, for dice, the secret seed (so the file of a running
game is as secret as the database it came from).

An import trusts nothing in the file: the moves and rolls are replayed from the start
position by the functions live play steps with (``games.stepping``), every turn's recorded
position must be what the replay gives, the dice must match the published commitment and,
with the seed, ``pbem dice verify``; the first thing that does not fit refuses the whole
record, naming the step or turn and why. The game keeps its id where that id is free (dice
derive from it: a dice game whose id is taken is refused); players are found by address or
created. League membership and ratings are not carried.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

import engine
from engine import EngineError, Event, State
from service import chain, clock, games, players, sequences
from service.errors import BadRequest, Conflict, Forbidden, Words
from service.games import stepping
from service.i18n import N_
from service.models import Game, Order, OrderStatus, Player, Seat, Step, utcnow

FORMAT = "pbem-export-1"


class RecordRefused(BadRequest):
    """The record does not replay; the message names where and why."""

    code = "record_refused"


def export(session: Session, game_id: int) -> dict[str, Any]:
    game = games.get(session, game_id)
    data = games.record(session, game, None)
    pending = session.scalars(
        select(Order).where(
            Order.game_id == game.id,
            Order.turn == game.turn,
            Order.status == OrderStatus.CURRENT,
        )
    ).all()
    steps = session.scalars(select(Step).where(Step.game_id == game.id).order_by(Step.number))
    data["export"] = {
        "format": FORMAT,
        "exported_at": utcnow().isoformat(),
        "seats": [
            {
                "seat": s.seat,
                "name": s.player.name,
                "emails": [e.address for e in s.player.emails],
                "missed": s.missed,
                "bank_seconds": s.bank_seconds,
            }
            for s in game.seats
        ],
        "step_turns": [step.turn for step in steps],
        "seed": game.seed.hex() if game.seed else None,
        "pending": [{"seat": o.seat, "text": o.parsed} for o in pending if o.sealed],
    }
    return data


@dataclass
class Replay:
    """The engine's account of a record: states at each turn's start, step turns, the end."""

    state: State
    turn_states: list[State] = field(default_factory=list)
    step_turns: list[int] = field(default_factory=list)
    rolls: int = 0


def _fail(where: str, why: str) -> RecordRefused:
    """The refusal in the caller's language: ``where`` and ``why`` too when the catalogs hold
    them (marked ``N_``); words made of the record's own values stay English."""
    return RecordRefused(
        N_("record refused at %(where)s: %(why)s"),
        values={"where": Words(where), "why": Words(why)},
    )


def _read(data: Any) -> tuple[engine.Game, dict[str, Any], list[dict[str, Any]]]:
    if not isinstance(data, Mapping):
        raise _fail(N_("the top"), N_("a record is a JSON object"))
    section = data.get("export")
    if not isinstance(section, Mapping) or section.get("format") != FORMAT:
        raise _fail(N_("the top"), f"no export section of format {FORMAT} (use pbem game export)")
    for key in ("game", "steps", "turns", "status", "orders", "log"):
        if key not in data:
            raise _fail(N_("the top"), f"the record lacks {key!r}")
    options = data.get("options") or {}
    if not isinstance(options, Mapping):
        raise _fail("options", N_("options must be an object"))
    try:
        rules = engine.new_game(str(data["game"]), dict(options), data.get("players"))
    except EngineError as error:
        raise _fail(N_("the game"), str(error)) from None
    steps = data["steps"]
    if not isinstance(steps, list) or not all(isinstance(s, Mapping) for s in steps):
        raise _fail("steps", N_("steps must be a list of objects"))
    return rules, dict(section), list(steps)


def replay(rules: engine.Game, data: Mapping[str, Any]) -> Replay:
    """Every step through the engine, by the functions live play steps with
    (``games.stepping``): a move, or every seat's sealed orders then their resolution, then the
    dice due."""
    start = data.get("start_position")
    try:
        state = rules.parse_position(start) if isinstance(start, str) else rules.initial_state()
    except EngineError as error:
        raise _fail(N_("the start position"), str(error)) from None
    run = Replay(state)
    steps = list(data["steps"])
    index = 0

    def take(turn: int) -> tuple[int, Mapping[str, Any]]:
        nonlocal index
        if index >= len(steps):
            raise _fail(
                f"step {index + 1}", f"the record ends but the game says: {run.state.status()}"
            )
        index += 1
        run.step_turns.append(turn)
        return index, steps[index - 1]

    def advance(turn: int, state: State, told: Sequence[Event]) -> None:
        def recorded(_state: State) -> str | None:
            if index >= len(steps):
                return None
            number, step = take(turn)
            if step.get("kind") != "chance":
                raise _fail(f"step {number}", f"a roll is due but the record has {step!r}")
            run.rolls += 1
            return str(step.get("outcome"))

        try:
            run.state, _told = stepping.advance(state, told, recorded)
        except EngineError as error:
            raise _fail(f"step {index}", str(error)) from None

    def move(turn: int) -> tuple[int, int, Any]:
        number, step = take(turn)
        seat = step.get("seat")
        if step.get("kind") != "move" or seat not in run.state.to_act:
            raise _fail(
                f"step {number}", f"it records {step!r} but the game says: {run.state.status()}"
            )
        try:
            return number, seat, run.state.parse(seat, str(step.get("text")))
        except EngineError as error:
            raise _fail(f"step {number}", str(error)) from None

    advance(0, run.state, ())
    taken = _taken_back(data)
    turn = 0
    while not run.state.is_over:
        turn += 1
        run.turn_states.append(run.state)
        if turn in taken:  # a move taken back (issue 25): in the chain, not in the steps
            before, (seat, text) = run.state, taken[turn]
            try:
                played = stepping.play(before, seat, run.state.parse(seat, text))
            except EngineError as error:
                raise _fail(f"turn {turn}", str(error)) from None
            run.turn_states.append(played.state)  # the turn the takeback closed
            run.state = before
            turn += 1
            continue
        if index >= len(steps):
            break
        stepped: stepping.Played | stepping.Resolved
        try:
            if run.state.simultaneous:
                sealed = run.state
                for _ in run.state.to_act:
                    number, seat, action = move(turn)
                    if seat in sealed.submitted():
                        raise _fail(f"step {number}", f"seat {seat} has orders twice this turn")
                    sealed = stepping.seal(sealed, seat, action).state
                stepped = stepping.resolve(sealed)
            else:
                number, seat, action = move(turn)
                stepped = stepping.play(run.state, seat, action)
        except EngineError as error:
            raise _fail(f"turn {turn}", str(error)) from None
        advance(turn, stepped.state, stepped.told)
    if index < len(steps):
        raise _fail(f"step {index + 1}", N_("the game was already over; the record goes on"))
    return run


def _taken_back(data: Mapping[str, Any]) -> dict[int, tuple[int, str]]:
    """The moves the chain's ``takeback`` links undid, by the turn they were played in (the
    steps no longer list them; ``chain.verify`` checks those links when the chain is kept)."""
    taken: dict[int, tuple[int, str]] = {}
    for link in data.get("chain") or []:
        link_data = link.get("data") if isinstance(link, Mapping) else None
        if link.get("kind") == "takeback" and isinstance(link_data, Mapping):
            played_in, seat = link_data.get("played_in"), link_data.get("seat")
            if isinstance(played_in, int) and isinstance(seat, int):
                taken[played_in] = (seat, str(link_data.get("text")))
    return taken


def _check(data: Mapping[str, Any], section: Mapping[str, Any], run: Replay) -> None:
    turns = data["turns"]
    if not isinstance(turns, list) or len(turns) != len(run.turn_states):
        count = len(turns) if isinstance(turns, list) else "no"
        raise _fail("turns", f"the record has {count} turns, its moves make {len(run.turn_states)}")
    for number, (told, state) in enumerate(zip(turns, run.turn_states, strict=True), start=1):
        if not isinstance(told, Mapping) or told.get("position") != state.position():
            shown = told.get("position") if isinstance(told, Mapping) else told
            raise _fail(
                f"turn {number}",
                f"the record's position {shown!r} is not what the moves give, {state.position()!r}",
            )
    if section.get("step_turns") != run.step_turns:
        raise _fail("export.step_turns", N_("the steps' turns do not follow the replay"))
    commitment, seed = data.get("commitment"), section.get("seed")
    if commitment is None and seed is None:
        return
    dice = games.dice()
    try:
        revealed = bytes.fromhex(str(seed))
    except ValueError:
        raise _fail("export.seed", N_("the dice seed is not hexadecimal")) from None
    if dice.commitment(revealed) != commitment:
        raise _fail("export.seed", N_("the dice seed does not match the game's commitment"))
    verdict = dice.verify({**data, "seed": seed})
    if not verdict.ok:
        raise _fail(N_("the dice"), verdict.summary())


def import_record(
    session: Session, data: Any, actor: Player | None, now: datetime | None = None
) -> Game:
    """Replay, check and store an exported record; returns the new game."""
    now = now or utcnow()
    if actor is not None and not actor.has_role("td", "admin"):
        raise Forbidden(N_("only tournament directors and admins import games"))
    rules, section, _steps = _read(data)
    run = replay(rules, data)
    _check(data, section, run)
    wanted = data.get("id")
    taken = not isinstance(wanted, int) or session.get(Game, wanted) is not None
    if taken and section.get("seed"):
        raise Conflict(
            f"game {wanted} exists here: a game with dice keeps its id (its rolls derive from it)",
            "id_taken",
        )
    try:
        game = _store_game(session, data, section, run, None if taken else wanted, actor)
        _store_rows(session, game, data, section, run)
        _store_chain(session, game, data, run, kept_id=not taken)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise _fail(
            "the record's rows", f"a turn, order or log entry is malformed ({error!r})"
        ) from None
    games.LockedGame(session, game).log("imported", f"Imported from a record on {now.isoformat()}")
    sequences.bump(session, "games")
    return game


def _store_chain(
    session: Session, game: Game, data: Mapping[str, Any], run: Replay, *, kept_id: bool
) -> None:
    """The record's own chain when it verifies and the game keeps its id (its receipts and
    rolls name that id); otherwise a chain that begins here, resumed from the replayed
    position and naming the head of the chain it came with."""
    links = data.get("chain")
    if kept_id and isinstance(links, list) and links:
        try:
            report = chain.verify(data)
        except chain.ChainError as error:
            raise _fail(N_("the chain"), str(error)) from None
        if not report.ok:
            raise _fail(N_("the chain"), str(report.fault))
        chain.adopt(session, game, links)
        return
    head = links[-1].get("hash") if isinstance(links, list) and links else None
    resumed = {"state": run.state.to_json(), "steps": list(data["steps"]), "from_chain": head}
    chain.started(session, game, resumed)
    if game.status != games.ACTIVE:
        chain.ended(
            session,
            game,
            "move" if run.state.is_over else "import",
            games.public_result(game.result) or {},
        )


def _seat_players(session: Session, section: Mapping[str, Any], count: int) -> list[Player]:
    seats = section.get("seats")
    if not isinstance(seats, list) or len(seats) != count:
        raise _fail("export.seats", f"{count} seats with name and emails are needed")
    found = []
    for seat in seats:
        emails = seat.get("emails") if isinstance(seat, Mapping) else None
        if not isinstance(emails, list) or not emails:
            raise _fail("export.seats", f"seat {seat!r} has no e-mail address")
        player = next((p for p in (players.by_address(session, str(e)) for e in emails) if p), None)
        if player is None:
            player, _token = players.create(
                session, None, {"name": seat.get("name") or emails[0], "emails": emails}
            )
        found.append(player)
    return found


def _when(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) else None


def _store_game(
    session: Session,
    data: Mapping[str, Any],
    section: Mapping[str, Any],
    run: Replay,
    game_id: int | None,
    actor: Player | None,
) -> Game:
    state = run.state
    seated = _seat_players(session, section, state.game.players)
    status: str = games.ACTIVE
    result = None
    if state.is_over and state.outcome is not None:
        status, result = games.FINISHED, state.outcome.to_json()
    elif data["status"] in (games.FINISHED, "void"):
        status, result = str(data["status"]), data.get("result")
    pending = section.get("pending") or []
    if status == games.ACTIVE and state.simultaneous:
        for order in pending:
            try:
                seat = order["seat"]
                state = stepping.seal(state, seat, state.parse(seat, str(order["text"]))).state
            except (EngineError, KeyError, TypeError) as error:
                raise _fail("export.pending", f"{order!r}: {error}") from None
    seed = section.get("seed")
    game = Game(
        id=game_id,
        name=state.game.name,
        options=dict(state.game.options),
        players=state.game.players,
        status=status,
        time_control=clock.normalise(data.get("time_control")),
        state=state.to_json(),
        turn=len(run.turn_states),
        rolls=run.rolls,
        draw_offers=[],
        result=result,
        seed=bytes.fromhex(seed) if isinstance(seed, str) else None,
        commitment=data.get("commitment"),
        created_by=actor.id if actor else None,
        created_at=_when(data.get("created_at")) or utcnow(),
        finished_at=_when(data.get("finished_at")),
        start_position=data.get("start_position"),
    )
    seats = section["seats"]
    game.seats = [
        Seat(
            seat=index,
            player_id=player.id,
            missed=int(seats[index].get("missed") or 0),
            bank_seconds=seats[index].get("bank_seconds"),
        )
        for index, player in enumerate(seated)
    ]
    session.add(game)
    session.flush()
    return game


def _store_rows(
    session: Session,
    game: Game,
    data: Mapping[str, Any],
    section: Mapping[str, Any],
    run: Replay,
) -> None:
    """The record's rows, written by the locked game (the one writer of a game's rows)."""
    aggregate = games.LockedGame.new(session, game)
    for step, turn in zip(data["steps"], run.step_turns, strict=True):
        chance = step.get("kind") == "chance"
        text = str(step.get("outcome") if chance else step.get("text"))
        aggregate.restore_step("chance" if chance else "move", step.get("seat"), text, turn)
    for number, (told, state) in enumerate(zip(data["turns"], run.turn_states, strict=True), 1):
        resolved = (
            _when(told.get("resolved_at")),
            told.get("resolved_by"),
            list(told.get("events") or []),
        )
        started = _when(told.get("started_at")) or utcnow()
        aggregate.restore_turn(number, state, started, _when(told.get("deadline")), resolved)
    for order in data["orders"]:
        aggregate.restore_order(
            order["turn"],
            order["seat"],
            order["text"],
            order["parsed"],
            order.get("channel") or "api",
            order["status"],
            _when(order.get("at")) or utcnow(),
            sealed=bool(order.get("sealed")),
            receipt=order.get("receipt"),
            salt=order.get("receipt_salt"),
        )
    for pending in section.get("pending") or []:
        parsed = str(pending["text"])
        aggregate.restore_order(
            game.turn,
            pending["seat"],
            parsed,
            parsed,
            "import",
            OrderStatus.CURRENT,
            utcnow(),
            sealed=True,
        )
    for entry in data["log"]:
        aggregate.log(
            str(entry.get("kind"))[:32],
            str(entry.get("text")),
            entry.get("seat"),
            turn=entry.get("turn", 0),
            at=_when(entry.get("at")) or utcnow(),
        )
    session.flush()
