"""Conditional moves: answers a player leaves for moves (or rolls) not yet made.

The syntax, by API (``POST /games/ID/conditional``) and by mail alike: one line per branch,
each line a chain of ``if X then Y`` read left to right, every later ``if`` one level deeper::

    if g11-g10 then c4-c6
    if g11-g9 then c4-c5 if h12-h11 then a1-a2

reads as a tree: if the opponent plays ``g11-g10`` answer ``c4-c6``; if ``g11-g9`` answer
``c4-c5``, and then if they play ``h12-h11`` answer ``a1-a2``. Lines sharing a beginning share
those branches; ``,`` or ``;`` may separate the steps of a line; ``if``/``then`` are
case-insensitive. Two different answers to the same move are refused.

* **Alternating games** (Epaminondas, Anti-Grid): ``X`` is the opponent's next move. The tree is
  given while the opponent is to move, and every branch is validated at once against the
  position it would meet (the opponent's move, the answer, the next move...), with the engine's
  own errors, like a move. When the opponent's move matches a branch, its answer is played at
  once (channel ``conditional``; both players get the usual mails, whose events say it was a
  conditional move) and the tree goes on with that branch's deeper lines; any other move
  cancels the whole tree.
* **Games with dice and no sealed turns** (Elemento): ``X`` is ``roll <outcome>``, e.g.
  ``if roll G+R then E@a4``: standing instructions for the player's next turn by the roll it
  brings, so a 3–4 player game advances several rolls without a mail round trip. A deeper
  ``if roll`` is for the turn after. The rolls must be outcomes of the dice and every answer
  must read as a move (the engine's notation errors come back at once); whether it is legal is
  checked when its roll comes up, since other players move in between and the board it meets
  is not known before. A roll with no answer, or an answer not legal on that board, ends the
  instructions and the player moves as usual.

A tree is secret like sealed orders: only its author sees it (``GET /games/ID/conditional``,
their confirmation mail); records, logs, views, other players' mails and the public page never
mention it, except an answer once played, which is a move like any other. A new tree replaces
the player's previous one; ``DELETE /games/ID/conditional`` withdraws it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from engine import EngineError, Event, NotationError, State
from engine.errors import NTranslate, Translate
from service import db, games
from service.errors import BadRequest, Conflict, Forbidden, ServiceError, Unprocessable, from_engine
from service.i18n import N_
from service.models import ConditionalMove, Game, GameStatus, Player, Step, utcnow

ACTIVE = "active"
"""A conditional tree's status while it stands (not a game's: that is ``GameStatus``)."""
MAX_LINES = 40
MAX_DEPTH = 12
_KEYWORDS = re.compile(r"\b(if|then)\b", re.I)
_ROLL = re.compile(r"roll\s+(?P<outcome>\S+)", re.I)

Branch = dict[str, Any]
"""``{"if": text, "then": text, "next": [Branch, ...]}``, texts in canonical form."""


# -- reading ------------------------------------------------------------------------------


def is_conditional_line(line: str) -> bool:
    """Whether a typed line is an ``if ... then ...`` line (the mail reader's test)."""
    return bool(re.match(r"\s*if\b", line, re.I)) and bool(re.search(r"\bthen\b", line, re.I))


def read_lines(text: str) -> list[list[tuple[str, str]]]:
    """Each line as its chain of (condition, answer) pairs, as typed; BadRequest if unreadable."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        raise Unprocessable(N_("give at least one line 'if <their move> then <your move>'"))
    if len(lines) > MAX_LINES:
        raise Unprocessable(
            N_("at most %(most)s conditional lines at once"), values={"most": MAX_LINES}
        )
    return [_read_line(line) for line in lines]


def _read_line(line: str) -> list[tuple[str, str]]:
    parts = [part.strip(" ,;") for part in _KEYWORDS.split(line)]
    words = [part.lower() for part in parts[1::2]]
    values = parts[2::2]
    expected = ["if", "then"] * (len(words) // 2)
    if parts[0] or words != expected or not all(values) or not words:
        raise Unprocessable(
            N_(
                "cannot read %(line)s: write 'if <their move> then <your move>', "
                "and for a deeper level go on with 'if ... then ...' on the same line"
            ),
            values={"line": repr(line)},
        )
    pairs = list(zip(values[0::2], values[1::2], strict=True))
    if len(pairs) > MAX_DEPTH:
        raise Unprocessable(
            N_("%(line)s goes %(depth)s levels deep; at most %(most)s"),
            values={"line": repr(line), "depth": len(pairs), "most": MAX_DEPTH},
        )
    return pairs


def describe(tree: Sequence[Branch], prefix: str = "") -> list[str]:
    """The tree in the syntax it is given in, one line per path to a leaf (for the author's
    API view and mail), so that sending the lines back gives the same tree.

    >>> tree = [{"if": "a", "then": "b", "next": [{"if": "c", "then": "d", "next": []}]},
    ...         {"if": "e", "then": "f", "next": []}]
    >>> describe(tree)
    ['if a then b if c then d', 'if e then f']
    """
    lines = []
    for branch in tree:
        here = f"{prefix}if {branch['if']} then {branch['then']}"
        lines += describe(branch["next"], here + " ") if branch["next"] else [here]
    return lines


# -- giving and withdrawing ---------------------------------------------------------------


def set_tree(
    session: Session,
    game_id: int,
    player: Player,
    turn: Any,
    text: Any,
    channel: str = "api",
    now: datetime | None = None,
) -> dict[str, Any]:
    """Validate and store the caller's tree (replacing any earlier one); their view of it."""
    if not isinstance(text, str) or not text.strip():
        raise BadRequest(
            N_("text must be the conditional lines, e.g. 'if g11-g10 then c4-c6'"), values={}
        )
    game = games.lock(session, game_id)
    seat = games.seat_of(game, player)
    if seat is None:
        raise Forbidden(
            N_("%(name)s does not play in game %(game)s"),
            values={"name": player.name, "game": game.id},
        )
    state = games.check_turn(session, game, turn)
    if state.simultaneous:
        raise Conflict(
            N_(
                "conditional moves are for alternating games; sealed orders already wait for "
                "the turn to resolve"
            ),
            "not_alternating",
        )
    lines = read_lines(text)
    by_roll = games.has_dice(state)
    tree: list[Branch] = []
    for pairs in lines:
        checked = (
            _check_roll_line(state, seat, pairs) if by_roll else _check_line(state, seat, pairs)
        )
        _merge(tree, checked, " ".join(f"if {a} then {b}" for a, b in pairs))
    _end_active(session, game, seat, "replaced", now)
    session.add(
        ConditionalMove(
            game_id=game.id,
            seat=seat,
            player_id=player.id,
            text=text.strip(),
            tree=tree,
            channel=channel,
            status=ACTIVE,
            created_at=now or utcnow(),
            turn=game.turn,
        )
    )
    db.work_of(session).conditionals[game.id] = True
    session.flush()
    return own(session, game, player) or {}


def withdraw(session: Session, game_id: int, player: Player) -> dict[str, Any]:
    game = games.lock(session, game_id)
    seat = games.seat_of(game, player)
    if seat is None or _active(session, game, seat) is None:
        raise Conflict(
            N_("you have no conditional moves in this game to withdraw"), "no_conditional"
        )
    _end_active(session, game, seat, "withdrawn", None)
    return {"conditional": None}


def own(session: Session, game: Game, player: Player | None) -> dict[str, Any] | None:
    """The author's view of their active tree (None when they have none): for them alone."""
    seat = games.seat_of(game, player)
    if seat is None or game.status != GameStatus.ACTIVE:
        return None
    row = _active(session, game, seat)
    if row is None:
        return None
    return {
        "text": row.text,
        "lines": describe(row.tree),
        "tree": row.tree,
        "set_at_turn": row.turn,
    }


def last_ended(session: Session, game: Game, player: Player) -> dict[str, Any] | None:
    """The author's most recent tree that is no longer active, and how it ended."""
    seat = games.seat_of(game, player)
    query = select(ConditionalMove).where(
        ConditionalMove.game_id == game.id,
        ConditionalMove.seat == seat,
        ConditionalMove.status != ACTIVE,
    )
    row = session.scalar(query.order_by(ConditionalMove.id.desc()).limit(1))
    return None if row is None else {"status": row.status, "text": row.text}


def _check_line(state: State, seat: int, pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Play the line through the engine from here; the canonical texts, or the engine's error."""
    canonical = []
    for depth, (theirs, mine) in enumerate(pairs):
        where = _where(theirs, mine, depth)
        if state.is_over or seat in state.to_act or not state.to_act:
            raise _in_line(NOT_THEIR_MOVE, "not_their_move", where, state.status_reason())
        mover = state.to_act[0]
        state, their_text = _apply(state, mover, theirs, where, THEIR_MOVE)
        if state.is_over or state.to_act != (seat,):
            status = state.status_reason()
            raise _in_line(NOTHING_TO_ANSWER, "nothing_to_answer", where, status, their_text)
        state, my_text = _apply(state, seat, mine, where, YOUR_ANSWER)
        canonical.append((their_text, my_text))
    return canonical


IN_LINE = N_("in 'if %(theirs)s then %(mine)s'")
IN_LINE_AT = N_("in 'if %(theirs)s then %(mine)s' (level %(level)s)")
NOT_THEIR_MOVE = N_(
    "%(where)s: it is not your opponent's move there (%(status)s); a conditional move "
    "answers the opponent's next move"
)
NOTHING_TO_ANSWER = N_("%(where)s: after %(theirs)s %(status)s")
THEIR_MOVE = N_("%(where)s, their move: %(why)s")
YOUR_ANSWER = N_("%(where)s, your answer: %(why)s")


def _where(theirs: str, mine: str, depth: int) -> Callable[[Translate], str]:
    """Which pair of a line a refusal is about, in the language of ``translate``."""

    def write(translate: Translate) -> str:
        values = {"theirs": theirs, "mine": mine, "level": depth + 1}
        return translate(IN_LINE_AT if depth else IN_LINE) % values

    return write


def _in_line(
    template: str, code: str, where: Callable[[Translate], str], status: Any, theirs: str = ""
) -> Conflict:
    """A refusal of a pair of a line that quotes the position there (``status``: the engine's
    ``Reason`` for its status line), in the reader's language."""

    def render(translate: Translate, ntranslate: NTranslate | None = None) -> str:
        values = {"where": where(translate), "theirs": theirs}
        return translate(template) % {**values, "status": status.render(translate, ntranslate)}

    return Conflict(render(N_), code, render=render)


def _apply(
    state: State, seat: int, text: str, where: Callable[[Translate], str], what: str
) -> tuple[State, str]:
    try:
        action = state.parse(seat, text)
        return state.play(seat, action).state, state.format(action)
    except EngineError as error:
        served = from_engine(error)
        raise type(served)(
            what % {"where": where(N_), "why": served.message},
            served.code,
            render=lambda translate, ntranslate: (
                translate(what)
                % {"where": where(translate), "why": served.render(translate, ntranslate)}
            ),
        ) from error


def _check_roll_line(
    state: State, seat: int, pairs: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Rolls must be outcomes of the dice; an answer is checked now when it is the seat's
    answers are read, and checked when their roll comes up (the board is not known before)."""
    canonical = []
    for condition, answer in pairs:
        where = _where(condition, answer, 0)
        found = _ROLL.fullmatch(condition)
        outcomes = _roll_outcomes(state)
        roll = next((o for o in outcomes if found and o.lower() == found["outcome"].lower()), None)
        if roll is None:
            raise _write_a_roll(where, ", ".join(outcomes))
        canonical.append((f"roll {roll}", _read_move(state, seat, answer, where)))
    return canonical


WRITE_A_ROLL = N_("%(where)s: write 'if roll <dice> then <move>' with one of %(outcomes)s")


def _write_a_roll(where: Callable[[Translate], str], outcomes: str) -> Unprocessable:
    def render(translate: Translate, _n: NTranslate | None = None) -> str:
        return translate(WRITE_A_ROLL) % {"where": where(translate), "outcomes": outcomes}

    return Unprocessable(render(N_), render=render)


def _read_move(state: State, seat: int, text: str, where: Callable[[Translate], str]) -> str:
    """The canonical text when the move is legal here, else the text as typed; a text that
    is no move in this game's notation is refused with the engine's words."""
    try:
        return state.format(state.parse(seat, text))
    except NotationError as error:
        served = from_engine(error)
        raise Unprocessable(
            YOUR_ANSWER % {"where": where(N_), "why": served.message},
            "cannot_read",
            render=lambda translate, ntranslate: (
                translate(YOUR_ANSWER)
                % {"where": where(translate), "why": served.render(translate, ntranslate)}
            ),
        ) from error
    except EngineError:
        return " ".join(text.split())


def _roll_outcomes(state: State) -> tuple[str, ...]:
    return state.chance_outcomes() or ("G+R", "G+B", "Y+R", "Y+B")


def _merge(tree: list[Branch], pairs: list[tuple[str, str]], line: str) -> None:
    level = tree
    for theirs, mine in pairs:
        branch = next((b for b in level if b["if"] == theirs), None)
        if branch is None:
            branch = {"if": theirs, "then": mine, "next": []}
            level.append(branch)
        elif branch["then"] != mine:
            raise Unprocessable(
                N_("%(line)s: two answers to %(theirs)s: %(first)s and %(second)s"),
                "two_answers",
                values={
                    "line": repr(line),
                    "theirs": theirs,
                    "first": branch["then"],
                    "second": mine,
                },
            )
        level = branch["next"]


def _active(session: Session, game: Game, seat: int) -> ConditionalMove | None:
    query = select(ConditionalMove).where(
        ConditionalMove.game_id == game.id,
        ConditionalMove.seat == seat,
        ConditionalMove.status == ACTIVE,
    )
    return session.scalar(query)


def _end_active(session: Session, game: Game, seat: int, status: str, now: datetime | None) -> None:
    row = _active(session, game, seat)
    if row is not None:
        row.status, row.ended_at = status, now or utcnow()


# -- firing -------------------------------------------------------------------------------


def after_step(session: Session, game: Game, now: datetime) -> None:
    """After a move was applied: play every answer now due, cancel trees it does not match.

    Runs until no answer is due (an answer may meet the other player's tree in turn).
    Nothing to read when the game was read without any (``db.Work.conditionals``).
    """
    if db.work_of(session).conditionals.get(game.id) is False:
        return
    for _ in range(2 * MAX_DEPTH * max(1, game.players) + 2):
        if not _fire_one(session, game, now):
            return


def _fire_one(session: Session, game: Game, now: datetime) -> bool:
    rows = session.scalars(
        select(ConditionalMove).where(
            ConditionalMove.game_id == game.id, ConditionalMove.status == ACTIVE
        )
    ).all()
    if not rows:
        return False
    state = games.state_of(game)
    if game.status != GameStatus.ACTIVE:
        for ended in rows:
            ended.status, ended.ended_at = "game_over", now
        return False
    if state.simultaneous or len(state.to_act) != 1:
        return False
    seat = state.to_act[0]
    row = next((r for r in rows if r.seat == seat and r.turn < game.turn), None)
    if row is None:
        return False
    happened = _what_happened(session, game, seat, by_roll=games.has_dice(state))
    branch = next((b for b in row.tree if b["if"] == happened), None)
    if branch is None:
        row.status, row.ended_at = "cancelled", now
        return False
    name = state.game.seat_names[seat]
    note = Event(f"{name}'s conditional move: if {happened} then {branch['then']}", "info", seat)
    try:
        with session.begin_nested():
            games.answer(session, game, seat, branch["then"], now, note)
    except ServiceError:
        row.status, row.ended_at = "failed", now  # no longer legal on the board it met
        return False
    if branch["next"]:
        row.tree, row.turn = branch["next"], game.turn
    else:
        row.status, row.ended_at = "done", now
    return True


def _what_happened(session: Session, game: Game, seat: int, *, by_roll: bool) -> str | None:
    """The step the seat now to act answers: the last roll, or the opponent's last move."""
    query = select(Step).where(Step.game_id == game.id).order_by(Step.number.desc()).limit(1)
    if by_roll:
        query = query.where(Step.kind == "chance")
    else:
        query = query.where(Step.kind == "move", Step.seat != seat)
    step = session.scalar(query)
    if step is None:
        return None
    return f"roll {step.text}" if by_roll else step.text


def tree_texts(tree: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every move text in a tree (tests use it to prove nobody else is shown any)."""
    texts: list[str] = []
    for branch in tree:
        texts += [str(branch["if"]), str(branch["then"]), *tree_texts(branch["next"])]
    return texts
