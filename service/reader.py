"""What a game mail tells its reader beyond the engine's view: the board from their side with
the last move marked, the open draw offers, and how close they are to a forfeit.

:func:`view_for` is what ``notify`` puts in every game mail as ``view``; it adds keys to
``View.to_json()`` (``flipped``, ``last_move``, ``last_squares``, ``offers``, ``warnings``,
``board_text``) that the board partials show when present. The public page and the API keep
the engine's view as it is, plus ``draw_offers`` in the API's game summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

import engine
from engine import State
from service import db, i18n
from service.mail.boards import changed_squares, reader_view, should_flip
from service.mail.commands import local_word
from service.mail.render import ascii_in
from service.mail.words import seat_name
from service.models import Game, GameStatus, Player, Step, Turn


def view_for(
    session: Session, game: Game, state: State, seat: int | None, reader: Player | None
) -> dict[str, Any]:
    """The reader's view of ``game`` for a mail (``state``: the game's current state)."""
    flip = reader.board_flip if reader is not None else False
    board_text = reader.board_text if reader is not None else "grid"
    locale = i18n.locale_for(reader)
    return drawn_view(scene_of(session, game, state), seat, flip, board_text, state, None, locale)


def scene_of(session: Session, game: Game, state: State) -> dict[str, Any]:
    """What every reader's view of the game as it stands now is drawn from (:func:`drawn_view`),
    as JSON: the engine state and the service's facts of the moment. A mail's outbox row keeps
    it, so that its view is drawn after commit yet shows its own event (issue 23)."""
    text, squares, number, moves = last_move_facts(session, game, state)
    names: list[str | None] = [None] * game.players
    for taken in game.seats:
        names[taken.seat] = taken.player.name
    return {
        "state": game.state,
        "game": game.name,
        "status": game.status,
        "result": game.result,
        "last_move": text,
        "last_squares": squares,
        "last_turn": number,
        "last_moves": [list(move) for move in moves],
        "offers": list(game.draw_offers or []),
        "names": names,
        "missed": {str(taken.seat): taken.missed for taken in game.seats},
        "forfeit_after": game.time_control.get("forfeit_after"),
    }


def drawn_view(
    scene: dict[str, Any],
    seat: int | None,
    flip_wanted: bool,
    board_text: str,
    state: State | None = None,
    seen: dict[str, Any] | None = None,
    locale: str = i18n.DEFAULT,
) -> dict[str, Any]:
    """The view of ``seat`` (None: a spectator's) of a :func:`scene_of`: only what that seat
    may see (``State.view``: sealed orders of others hidden), turned as the reader likes it.
    ``state``: the scene's state, parsed; ``seen``: :func:`seen_by` of the scene and seat, when
    the caller draws many views of one scene (``notify.render_many``); neither is changed.
    ``locale``: the reader's, for the last move's line and the missed-deadline warning (a
    scene stored before it kept the last move's parts keeps its English line)."""
    state = state if state is not None else engine.state_from_json(scene["state"])
    view = dict(seen) if seen is not None else seen_by(scene, state, seat)
    flip = should_flip(scene["game"], seat, flip_wanted)
    text = scene["last_move"]
    if text and locale != i18n.DEFAULT and scene.get("last_turn") is not None:
        moves = [(seat, move) for seat, move in scene.get("last_moves") or ()]
        text = move_line(state.game.seat_names, scene["last_turn"], moves, locale)
    shown = reader_view(view, flip, text, scene["last_squares"])
    shown["ascii"] = ascii_in(locale, state, seat, shown["ascii"])
    active = scene["status"] == GameStatus.ACTIVE
    names = state.game.seat_names
    shown["offers"] = _offer_lines(names, scene["names"], scene["offers"], active, seat, locale)
    missed = scene["missed"].get(str(seat), 0) if seat is not None else 0
    after = scene["forfeit_after"] if active and state.simultaneous else None
    shown["warnings"] = _missed_lines(seat, after, missed, locale=locale)
    shown["board_text"] = board_text
    return shown


def seen_by(scene: dict[str, Any], state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` of a :func:`scene_of` sees before it is turned and marked for a reader:
    ``State.view(seat)`` with the service's result of a game ended off the board. Nothing
    drawn from it edits it below its first level, so many readers' views may share it."""
    return _ended_off_board(state.view(seat).to_json(), scene["result"])


def ended_off_board(view: dict[str, Any], game: Game) -> dict[str, Any]:
    """A game ended off the board (resigned, drawn, forfeited, lost on time) carries the
    service's result as the view's outcome and status, and nobody is to move any more
    (issue 21, point 4: the game-over mail said "Black to move")."""
    return _ended_off_board(view, game.result)


def _ended_off_board(view: dict[str, Any], result: dict[str, Any] | None) -> dict[str, Any]:
    if view["outcome"] is None and result is not None:
        view["outcome"] = result
        view["status"] = f"Game over: {result['result']} ({result['reason']})"
        view["to_act"] = []
    return view


LastMove = tuple[str | None, list[str], int | None, list[tuple[int | None, str]]]
"""The last move's English line, the squares it changed, its turn and its moves (seat and
text), or ``(None, [], None, [])``."""


def last_move(
    session: Session, game: Game, state: State, locale: str = i18n.DEFAULT
) -> tuple[str | None, list[str]]:
    """``Last move (turn 5): White a1-a3`` (in ``locale``) and the squares it changed, or
    (None, []); worked out once per game and turn in a transaction (every seat's mail
    shares it)."""
    text, squares, number, moves = last_move_facts(session, game, state)
    if text and locale != i18n.DEFAULT and number is not None:
        text = move_line(state.game.seat_names, number, moves, locale)
    return text, squares


def last_move_facts(session: Session, game: Game, state: State) -> LastMove:
    """What :func:`last_move` says, with its turn and moves (see ``LastMove``)."""
    cache = db.work_of(session).last_moves
    key = (game.id, game.turn, game.status)
    if key not in cache:
        cache[key] = _last_move(session, game, state)
    found: LastMove = cache[key]
    return found


def move_line(
    names: Sequence[str],
    number: int,
    moves: Sequence[tuple[int | None, str]],
    locale: str = i18n.DEFAULT,
) -> str:
    """``Last move (turn 5): White a1-a3`` in ``locale``, the seats named in it."""
    said = "; ".join(
        f"{seat_name(names[seat], locale)} {move}" if seat is not None else move
        for seat, move in moves
    )
    line = i18n.translations(locale).ugettext("Last move (turn %(turn)s): %(moves)s")
    return line % {"turn": number, "moves": said}


def _last_move(session: Session, game: Game, state: State) -> LastMove:
    number = session.scalar(
        select(func.max(Step.turn)).where(Step.game_id == game.id, Step.kind == "move")
    )
    if number is None:
        return None, [], None, []
    steps = session.scalars(
        select(Step)
        .where(Step.game_id == game.id, Step.turn == number, Step.kind == "move")
        .order_by(Step.number)
    ).all()
    turns = session.scalars(
        select(Turn).where(Turn.game_id == game.id, Turn.number.in_((number, number + 1)))
    ).all()
    before = next((turn for turn in turns if turn.number == number), None)
    after = next((turn for turn in turns if turn.number == number + 1), None)
    new_state = engine.state_from_json(after.state) if after is not None else state
    moves = [(step.seat, step.text) for step in steps]
    return _move_lines(state, number, moves, before, new_state)


def _move_lines(
    state: State,
    number: int,
    moves: Sequence[tuple[int | None, str]],
    before: Turn | None,
    new_state: State,
) -> LastMove:
    text = move_line(state.game.seat_names, number, moves)
    if before is None:
        return text, [], number, list(moves)
    old = engine.state_from_json(before.state).grid(None)
    return text, changed_squares(old, new_state.grid(None)), number, list(moves)


def moved(
    session: Session, game: Game, number: int, moves: Sequence[tuple[int | None, str]]
) -> None:
    """What :func:`last_move` says after this unit of work played turn ``number`` of ``game``
    (``moves``: its move steps' seats and texts, in order), worked out from the rows it holds
    rather than read again (issue 23); the turn's row must be at hand (``db.Work.turns``), or
    it is read when needed."""
    work = db.work_of(session)
    before = work.turns.get((game.id, number))
    if before is None or not moves or game.state is None:
        return
    state = engine.state_from_json(game.state)  # the turn after's state, or the final one
    work.last_moves[(game.id, game.turn, game.status)] = _move_lines(
        state, number, moves, before, state
    )


def offer_lines(game: Game, state: State, seat: int | None) -> list[str]:
    """The open draw offers, as the reader should read them."""
    players: list[str | None] = [None] * game.players
    for taken in game.seats:
        players[taken.seat] = taken.player.name
    active = game.status == GameStatus.ACTIVE
    return _offer_lines(state.game.seat_names, players, game.draw_offers or [], active, seat)


def _offer_lines(
    names: Sequence[str],
    players: Sequence[str | None],
    offers: Sequence[int],
    active: bool,
    seat: int | None,
    locale: str = i18n.DEFAULT,
) -> list[str]:
    if not active or not offers:
        return []
    catalog = i18n.translations(locale)
    others = [s for s in offers if s != seat]
    lines = []
    words = {
        english.replace(" ", "_"): local_word(english, locale) or english
        for english in ("accept", "draw", "decline", "draw off")
    }
    if others:
        labels = [
            f"{players[s] or seat_name(names[s], locale)} ({seat_name(names[s], locale)})"
            for s in others
        ]
        if locale == i18n.DEFAULT or len(labels) == 1:
            who = " and ".join(labels)
        else:
            who = i18n.gettext(
                locale, "%(items)s and %(last)s", items=", ".join(labels[:-1]), last=labels[-1]
            )
        if seat is not None and seat not in offers:
            line = catalog.ungettext(
                'Draw offer: %(who)s offers a draw. Reply "%(accept)s" (or "%(draw)s") to '
                'agree, "%(decline)s" to refuse; it lapses when you move without answering.',
                'Draw offer: %(who)s offer a draw. Reply "%(accept)s" (or "%(draw)s") to '
                'agree, "%(decline)s" to refuse; it lapses when you move without answering.',
                len(others),
            )
        else:
            line = catalog.ungettext(
                "Draw offer: %(who)s offers a draw.",
                "Draw offer: %(who)s offer a draw.",
                len(others),
            )
        lines.append(line % {"who": who, **words})
    if seat is not None and seat in offers:
        line = catalog.ugettext(
            'Your draw offer stands until your opponent answers or moves; reply "%(draw_off)s" '
            "to take it back."
        )
        lines.append(line % words)
    return lines


def forfeit_lines(
    game: Game,
    state: State,
    seat: int | None,
    always: bool = False,
    locale: str = i18n.DEFAULT,
) -> list[str]:
    """How many missed deadlines the reader has left before a forfeit (sealed games), once
    they have missed one (``always``: even before), in ``locale``."""
    if seat is None or game.status != GameStatus.ACTIVE or not state.simultaneous:
        return []
    after = game.time_control.get("forfeit_after")
    return _missed_lines(seat, after, game.seats[seat].missed, always, locale)


def _missed_lines(
    seat: int | None,
    forfeit_after: int | None,
    missed: int,
    always: bool = False,
    locale: str = i18n.DEFAULT,
) -> list[str]:
    if seat is None or not forfeit_after or not (missed or always):
        return []
    return [missed_line(missed, forfeit_after, locale)]


def missed_line(missed: int, forfeit_after: int, locale: str = i18n.DEFAULT) -> str:
    """What missing deadlines costs the reader of a sealed game, in ``locale``."""
    catalog = i18n.translations(locale)
    left = forfeit_after - missed
    said = []
    if missed:
        so_far = catalog.ungettext(
            "You have missed %(num)s deadline in a row.",
            "You have missed %(num)s deadlines in a row.",
            missed,
        )
        said.append(so_far % {"num": missed})
    if left <= 1:
        said.append(
            catalog.ugettext(
                "Miss the next deadline and you forfeit the game (one more miss loses)."
            )
        )
    else:
        costs = catalog.ungettext(
            "%(num)s missed deadline in a row forfeits the game; the default orders played "
            "for you count as a miss.",
            "%(num)s missed deadlines in a row forfeit the game; the default orders played "
            "for you count as a miss.",
            left,
        )
        said.append(costs % {"num": left})
    return " ".join(said)
