"""The one game API all five games implement.

A :class:`Game` is a rule set bound to its options and player count. A :class:`State` is an
immutable position of that game. The caller drives a game with four kinds of step:

* **chance** — ``state.chance_outcomes()`` is non-empty: the caller picks one of those
  equally likely outcomes (the service from its provably fair dice, tests from a seeded RNG)
  and calls ``state.apply_chance(outcome)``;
* **sequential** — ``state.simultaneous`` is false: the one seat in ``state.to_act`` plays
  with ``state.play(seat, text)``;
* **sealed** — ``state.simultaneous`` is true: every seat in ``state.to_act`` may
  ``submit`` (and replace, or ``withdraw``) orders, validated at once against the position at
  the start of the turn; ``state.resolve()`` then applies all of them together, giving
  missing seats the game's default orders (C-4);
* **over** — ``state.outcome`` is set.

Every step returns a :class:`Resolution`: the new state and the events a notification can
narrate. Anything meant for a player leaves the engine through ``state.view(seat)``, which
never shows another seat's sealed orders.

Actions are each game's own frozen values. Texts are validated by ``parse``; action values
(from ``parse`` or ``legal_actions``) are trusted as legal.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Self, cast

from engine.errors import (
    GAME_ENDED,
    N_,
    NO_CHANCE_STEP,
    GameOverError,
    IllegalMoveError,
    NotationError,
    NotYourTurnError,
    NTranslate,
    OptionError,
    PositionError,
    Reason,
    Translate,
)

__all__ = [
    "Caption",
    "Cell",
    "Event",
    "Game",
    "Grid",
    "Legend",
    "Option",
    "Outcome",
    "Resolution",
    "State",
    "Termination",
    "View",
    "and_names",
]

Action = Any
JSON = dict[str, Any]


@dataclass(frozen=True)
class Option:
    """One game option: its default and the values it may take."""

    default: str
    choices: tuple[str, ...]
    help: str = ""


@dataclass(frozen=True)
class Event:
    """Something that happened in a step, told in words a result email can use.

    ``kind`` is a short machine tag (``move``, ``capture``, ``roll``, ``push``...);
    ``seat`` the seat it is about, if any.
    """

    text: str
    kind: str = "info"
    seat: int | None = None
    why: Reason | None = field(default=None, compare=False)
    """``text`` as a code, parameters and English template (the service renders it in the
    reader's language); not stored (``to_json``), ``text`` stays the record."""

    @classmethod
    def told(cls, why: Reason, kind: str = "info", seat: int | None = None) -> Event:
        """An event whose English ``text`` is ``why`` rendered."""
        return cls(why.render(), kind, seat, why)

    def to_json(self) -> JSON:
        return {"text": self.text, "kind": self.kind, "seat": self.seat}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        return cls(text=data["text"], kind=data.get("kind", "info"), seat=data.get("seat"))


class Termination(StrEnum):
    """How a game ended, as a kind (like python-chess's ``Termination``); ``Outcome.reason``
    says it in words. The rule books' endings first, then the service's own."""

    GOAL = "goal"
    """A side reached its goal: more stones across (EPA-9), the battle line on a ground line
    (ELA-10, a draw when both are reached at once), all 8 stones placed (ELE-11)."""
    CAPTURE = "capture"
    """A side is down to one pawn or none (ANT-12)."""
    NO_MOVES = "no_moves"
    """The side to move has no legal move (EPA-10, ANT-13)."""
    TRAPPED = "trapped"
    """The side to move has only pawns and moves on points where nothing can flank (ANT-14)."""
    REPETITION = "repetition"
    """The same position occurred three times (EPA-11)."""
    NO_PROGRESS = "no_progress"
    """Too long without a change: sticks (ELA-11), captures (ANT-15), placements or points
    (ELE-20), destructions (NEL-13)."""
    SCORE = "score"
    """A player reached the target points (ELE-11, ELE-15)."""
    PASSES = "passes"
    """Every player passed twice in a row (ELE-12)."""
    NO_CONTACT = "no_contact"
    """No X piece touches an O piece, nothing can be destroyed any more (NEL-13)."""
    RESIGNATION = "resignation"
    AGREEMENT = "agreement"
    """A draw offered and accepted."""
    TIMEOUT = "timeout"
    """A player's time ran out (the time bank of an alternating game)."""
    FORFEIT = "forfeit"
    """A player missed too many turns of a sealed game."""
    ADJUDICATION = "adjudication"
    """A league director set or corrected the result."""
    WITHDRAWAL = "withdrawal"
    """A player withdrew from the league the game belongs to."""
    CAP = "cap"
    """The game reached its league's cap on a game's days (``max_game_days``): decided by
    :meth:`State.adjudicate_at_cap` (the rule book's score, else a draw)."""
    UNKNOWN = "unknown"
    """Not told, and not recognised in the reason."""

    @classmethod
    def of_reason(cls, reason: str) -> Termination:
        """The kind a reason tells, for an outcome stored before ``termination`` existed and
        for a caller that does not pass one yet.

        >>> Termination.of_reason("White has no legal move (EPA-10)")
        <Termination.NO_MOVES: 'no_moves'>
        >>> Termination.of_reason("Black resigned")
        <Termination.RESIGNATION: 'resignation'>
        """
        return next((kind for words, kind in _REASON_WORDS if words in reason), cls.UNKNOWN)


_REASON_WORDS = (
    ("placed all 8 stones", Termination.GOAL),  # before ELE-11's points
    ("(EPA-9)", Termination.GOAL),
    ("(ELA-10)", Termination.GOAL),
    ("(EPA-10)", Termination.NO_MOVES),
    ("(ANT-13)", Termination.NO_MOVES),
    ("(EPA-11)", Termination.REPETITION),
    ("(ANT-12)", Termination.CAPTURE),
    ("(ANT-14)", Termination.TRAPPED),
    ("(ELA-11)", Termination.NO_PROGRESS),
    ("(ANT-15)", Termination.NO_PROGRESS),
    ("(ELE-20)", Termination.NO_PROGRESS),
    ("turns in a row without destruction", Termination.NO_PROGRESS),
    ("(ELE-11)", Termination.SCORE),
    ("(ELE-15)", Termination.SCORE),
    ("(ELE-12)", Termination.PASSES),
    ("nothing can be destroyed", Termination.NO_CONTACT),
    # the service's endings, in the words service/games.py and the league director use
    (" resigned", Termination.RESIGNATION),
    ("by agreement", Termination.AGREEMENT),
    ("lost on time", Termination.TIMEOUT),
    ("missed turns", Termination.FORFEIT),
    ("by the director", Termination.ADJUDICATION),
    ("withdrew from the league", Termination.WITHDRAWAL),
    ("(time cap)", Termination.CAP),
)


@dataclass(frozen=True)
class Outcome:
    """How a game ended: a finishing place per seat (1 = first, equal places tie), why in words
    (``reason``) and as a kind (``termination``; when not given, read from the reason).

    >>> Outcome.win(0, 2, "White crossed (EPA-9)", Termination.GOAL).result
    '1-0'
    >>> Outcome.draw(2, "threefold repetition (EPA-11)").points
    (0.5, 0.5)
    >>> Outcome.draw(2, "threefold repetition (EPA-11)").termination
    <Termination.REPETITION: 'repetition'>
    """

    places: tuple[int, ...]
    reason: str
    termination: Termination = Termination.UNKNOWN
    why: Reason | None = field(default=None, compare=False)
    """``reason`` as a code, parameters and English template (the service renders it in the
    reader's language); not stored (``to_json``)."""

    def __post_init__(self) -> None:
        if self.termination is Termination.UNKNOWN:
            object.__setattr__(self, "termination", Termination.of_reason(self.reason))

    @classmethod
    def win(
        cls,
        winner: int,
        players: int,
        reason: str | Reason,
        termination: Termination = Termination.UNKNOWN,
    ) -> Outcome:
        places = tuple(1 if seat == winner else 2 for seat in range(players))
        return cls._told(places, reason, termination)

    @classmethod
    def _told(
        cls, places: tuple[int, ...], reason: str | Reason, termination: Termination
    ) -> Outcome:
        if isinstance(reason, Reason):
            return cls(places, reason.render(), termination, reason)
        return cls(places, reason, termination)

    @classmethod
    def draw(
        cls, players: int, reason: str | Reason, termination: Termination = Termination.UNKNOWN
    ) -> Outcome:
        return cls._told((1,) * players, reason, termination)

    @classmethod
    def by_scores(
        cls,
        scores: Sequence[float],
        reason: str | Reason,
        termination: Termination = Termination.UNKNOWN,
    ) -> Outcome:
        """Places from scores, higher is better; equal scores share a place."""
        places = tuple(1 + sum(other > mine for other in scores) for mine in scores)
        return cls._told(places, reason, termination)

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, place in enumerate(self.places) if place == 1)

    @property
    def is_draw(self) -> bool:
        return len(self.winners) == len(self.places)

    @property
    def points(self) -> tuple[float, ...]:
        """1 shared among the seats in first place, 0 for the rest."""
        share = 1 / len(self.winners)
        return tuple(share if place == 1 else 0.0 for place in self.places)

    @property
    def result(self) -> str:
        """PGN-like: ``1-0``, ``0-1``, ``1/2-1/2``; with more seats the places, ``1-3-2``."""
        if len(self.places) == 2:
            return {(1, 2): "1-0", (2, 1): "0-1", (1, 1): "1/2-1/2"}[
                (self.places[0], self.places[1])
            ]
        return "-".join(str(place) for place in self.places)

    def to_json(self) -> JSON:
        return {
            "places": list(self.places),
            "reason": self.reason,
            "result": self.result,
            "termination": str(self.termination),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Outcome:
        """An outcome stored without ``termination`` (or with a kind no longer known) gets
        the kind its reason tells."""
        kinds = {str(kind): kind for kind in Termination}
        termination = kinds.get(str(data.get("termination")), Termination.UNKNOWN)
        return cls(tuple(data["places"]), data["reason"], termination)


def game_over(outcome: Outcome) -> Reason:
    """The ``end`` event's words: ``Game over: <reason>``."""
    why = outcome.why or outcome.reason
    return Reason("event_game_over", N_("Game over: {reason}"), reason=why)


@dataclass(frozen=True)
class Cell:
    """One square of a board picture for HTML: what stands there and how to shade it."""

    square: str
    text: str = ""
    style: str = ""
    title: str = ""

    def to_json(self) -> JSON:
        # by hand: dataclasses.asdict deep-copies, and a board has hundreds of cells per mail
        return {"square": self.square, "text": self.text, "style": self.style, "title": self.title}


@dataclass(frozen=True)
class Grid:
    """A board picture for HTML: rows from the top as the viewer sees it."""

    files: tuple[str, ...]
    ranks: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    legend: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> JSON:
        return {
            "files": list(self.files),
            "ranks": list(self.ranks),
            "rows": [[cell.to_json() for cell in row] for row in self.rows],
            "legend": [list(item) for item in self.legend],
        }


class Legend(Reason):
    """A text board's legend (:meth:`State.legend_why`): rows of ``(mark, words)`` entries
    drawn as a table, ``indent`` spaces in, each column as wide as its widest entry and two
    spaces (at least its ``widths``, the English layout), in every language. A table wider
    than ``width`` columns is drawn in blocks of fewer columns, one under the other; the marks
    stay as the board shows them, only the words are translated.

    >>> legend = Legend("demo", ((("R", Reason("r", "red")), ("o", Reason("p", "point"))),
    ...     (("B", Reason("b", "blue")),)), widths=(8,))
    >>> print(legend.render())
      R red   o point
      B blue
    """

    def __init__(
        self,
        code: str,
        rows: tuple[tuple[tuple[str, Reason], ...], ...],
        /,
        *,
        widths: tuple[int, ...] = (),
        indent: int = 2,
        width: int = 80,
    ) -> None:
        super().__init__(code, "{rows}", rows=rows, widths=widths, indent=indent, width=width)

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        rows = cast("tuple[tuple[tuple[str, Reason], ...], ...]", self.params["rows"])
        cells = [
            [f"{mark} {words.render(translate, ntranslate)}" for mark, words in row] for row in rows
        ]
        columns, width = max(len(row) for row in cells), cast("int", self.params["width"])
        for per_block in range(columns, 0, -1):
            lines = self._blocks(cells, columns, per_block)
            if per_block == 1 or max(len(line) for line in lines) <= width:
                break
        return "\n".join(lines)

    def _blocks(self, cells: list[list[str]], columns: int, per_block: int) -> list[str]:
        widths = cast("tuple[int, ...]", self.params["widths"])
        indent = " " * cast("int", self.params["indent"])
        lines = []
        for start in range(0, columns, per_block):
            block = [
                row[start : start + per_block] for row in cells if row[start : start + per_block]
            ]
            sizes = [
                max(
                    [
                        widths[start + column] if start + column < len(widths) else 0,
                        *(len(row[column]) + 2 for row in block if column < len(row)),
                    ]
                )
                for column in range(per_block)
            ]
            for row in block:
                line = "".join(cell.ljust(size) for cell, size in zip(row, sizes, strict=False))
                lines.append((indent + line).rstrip())
        return lines


class Caption(Reason):
    """A line of words on a text board (a side's name above or below it), centred on the
    board's ``middle`` column in every language."""

    def __init__(self, code: str, words: Reason, /, *, middle: int) -> None:
        super().__init__(code, "{words}", words=words, middle=middle)

    def render(self, translate: Translate = N_, ntranslate: NTranslate | None = None) -> str:
        words = cast("Reason", self.params["words"]).render(translate, ntranslate)
        return " " * max(0, cast("int", self.params["middle"]) - len(words) // 2) + words


@dataclass(frozen=True)
class View:
    """What one viewer (a seat, or ``None`` for a spectator) may see of a state."""

    game: str
    title: str
    options: Mapping[str, str]
    viewer: int | None
    seat_names: tuple[str, ...]
    position: str
    status: str
    to_act: tuple[int, ...]
    simultaneous: bool
    awaiting_chance: bool
    submitted: tuple[int, ...]
    own_orders: str | None
    examples: tuple[str, ...]
    info: tuple[str, ...]
    ascii: str
    grid: Grid
    outcome: Outcome | None

    def to_json(self) -> JSON:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["options"] = dict(self.options)
        data["grid"] = self.grid.to_json()
        data["outcome"] = self.outcome.to_json() if self.outcome else None
        for key in ("seat_names", "to_act", "submitted", "examples", "info"):
            data[key] = list(data[key])
        return data


@dataclass(frozen=True)
class Resolution:
    """The result of one step: the new state and what happened, in order."""

    state: State
    events: tuple[Event, ...] = ()


class Game(ABC):
    """A rule set bound to options and a player count; an immutable value.

    Subclasses set ``name``, ``title``, ``player_counts`` and ``OPTIONS`` and implement
    :meth:`initial_state`, :meth:`parse_position` and :meth:`state_from_json`.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    player_counts: ClassVar[tuple[int, ...]] = (2,)
    cap_decision: ClassVar[str] = "draw"
    """How :meth:`State.adjudicate_at_cap` decides: ``draw``, or ``score`` where the rule
    book counts one (the service names it in the mails that announce a cap)."""
    OPTIONS: ClassVar[Mapping[str, Option]] = {}

    def __init__(self, options: Mapping[str, str] | None = None, players: int | None = None):
        self._options = self._normalise_options(options or {})
        self._players = self.player_counts[0] if players is None else players
        if self._players not in self.player_counts:
            counts = ", ".join(str(n) for n in self.player_counts)
            reason = Reason(
                "player_count",
                N_("{game} is played by {counts} players"),
                game=self.title,
                counts=counts,
            )
            raise OptionError(f"players={self._players}", reason)

    @classmethod
    def _normalise_options(cls, given: Mapping[str, str]) -> dict[str, str]:
        options = {key: spec.default for key, spec in cls.OPTIONS.items()}
        for raw_key, raw_value in given.items():
            key, value = str(raw_key).strip().lower(), str(raw_value).strip().lower()
            spec = cls.OPTIONS.get(key)
            if spec is None:
                known = [f"{k}=<{'|'.join(s.choices)}>" for k, s in cls.OPTIONS.items()]
                reason = Reason(
                    "no_option", N_("{game} has no option {key!r}"), game=cls.title, key=key
                )
                raise OptionError(f"{key}={value}", reason, valid=known)
            if value not in spec.choices:
                reason = Reason(
                    "option_value",
                    N_("option {key!r} of {game} takes one of the listed values"),
                    key=key,
                    game=cls.title,
                )
                raise OptionError(f"{key}={value}", reason, valid=spec.choices)
            options[key] = value
        return options

    @property
    def options(self) -> Mapping[str, str]:
        return dict(self._options)

    @property
    def players(self) -> int:
        return self._players

    @property
    def seat_names(self) -> tuple[str, ...]:
        return tuple(f"Player {seat + 1}" for seat in range(self.players))

    def option(self, key: str) -> str:
        return self._options[key]

    @abstractmethod
    def initial_state(self) -> State:
        """The position before the first step (which may be a chance step)."""

    @abstractmethod
    def parse_position(self, text: str) -> State:
        """The state described by a position string (C-3); raises PositionError."""

    @abstractmethod
    def state_from_json(self, data: Mapping[str, Any]) -> State:
        """The inverse of ``State.to_json``; raises PositionError on bad data."""

    def to_json(self) -> JSON:
        return {"game": self.name, "options": self.options, "players": self.players}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and (self.name, self._options, self._players) == (
            other.name,
            other._options,
            other._players,
        )

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self._options.items())), self._players))

    def __repr__(self) -> str:
        options = ", ".join(f"{k}={v}" for k, v in self._options.items())
        return f"<{type(self).__name__} players={self._players} {options}>"


def and_names(names: Sequence[str]) -> Reason | str:
    """``A and B and C`` (seat names, which stay as the rule books write them), with the
    ``and`` a word the service translates."""
    if len(names) < 2:
        return "".join(names)
    return Reason("names_and", N_("{first} and {rest}"), first=names[0], rest=and_names(names[1:]))


class State(ABC):
    """An immutable position. Game states are frozen dataclasses deriving from this.

    Sealed-turn games keep submitted orders in a ``pending`` field: a tuple of
    ``(seat, action)`` pairs sorted by seat. It is part of the state (and of its JSON, which
    the service stores) but never of another seat's view or of the position string.
    """

    game: Game
    simultaneous: ClassVar[bool] = False
    pending: tuple[tuple[int, Action], ...] = ()

    # -- who acts ------------------------------------------------------------------------

    @property
    @abstractmethod
    def to_act(self) -> tuple[int, ...]:
        """Seats that owe an action now; empty while a chance step is due or when over."""

    @property
    @abstractmethod
    def outcome(self) -> Outcome | None:
        """How the game ended, or None while it goes on."""

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    def adjudicate_at_cap(self) -> Outcome:
        """The outcome of a running game stopped by a league's time cap (issue 25 point 6):
        the rule book's score where it has one (games override this), otherwise a draw."""
        players = len(self.game.seat_names)
        why = Reason("cap_draw", N_("a draw at the league's time cap (time cap)"))
        return Outcome.draw(players, why, Termination.CAP)

    def chance_outcomes(self) -> tuple[str, ...]:
        """Equally likely outcomes of the chance step due now; empty if none is due."""
        return ()

    def apply_chance(self, outcome: str) -> Resolution:
        raise IllegalMoveError(outcome, NO_CHANCE_STEP)

    # -- notation ------------------------------------------------------------------------

    @abstractmethod
    def parse(self, seat: int, text: str) -> Action:
        """Read and validate one seat's move or orders: NotationError or IllegalMoveError."""

    @abstractmethod
    def format(self, action: Action) -> str:
        """The canonical text of an action; ``parse(seat, format(a)) == a``."""

    @abstractmethod
    def legal_actions(self, seat: int) -> Sequence[Action]:
        """Every legal action of ``seat`` (sealed games may list a large but finite set)."""

    def random_action(self, seat: int, rng: random.Random) -> Action:
        """A uniformly drawn legal action (override where listing them all is slow)."""
        return rng.choice(list(self.legal_actions(seat)))

    def examples(self, seat: int, count: int = 5) -> tuple[str, ...]:
        """A few valid inputs for ``seat`` here, for help and error messages."""
        if seat not in self.to_act:
            return ()
        actions = list(self.legal_actions(seat))
        step = max(1, len(actions) // count)
        return tuple(self.format(action) for action in actions[::step][:count])

    # -- stepping ------------------------------------------------------------------------

    @abstractmethod
    def _resolve(self, actions: Mapping[int, Action]) -> Resolution:
        """Apply one action from every seat in ``to_act`` (already validated)."""

    def default_action(self, seat: int) -> Action:
        """The orders a sealed-turn seat gets when it misses the deadline (C-4)."""
        raise IllegalMoveError(
            "",
            Reason("no_default_orders", N_("{game} has no default orders"), game=self.game.title),
        )

    def _action(self, seat: int, action: Action | str) -> Action:
        self._check_turn(seat, action)
        return self.parse(seat, action) if isinstance(action, str) else action

    def _check_turn(self, seat: int, action: Action | str) -> None:
        text = action if isinstance(action, str) else self.format(action)
        if self.is_over:
            raise GameOverError(text, GAME_ENDED)
        if seat not in self.to_act:
            reason = Reason(
                "nothing_to_play",
                N_("{seat} has nothing to play now; {status}"),
                seat=self.game.seat_names[seat],
                status=self.status(seat),
            )
            raise NotYourTurnError(text, reason)

    def play(self, seat: int, action: Action | str) -> Resolution:
        """Sequential games: apply one seat's move."""
        if self.simultaneous:
            reason = Reason("orders_sealed", N_("orders are sealed: submit them, then resolve"))
            raise IllegalMoveError(str(action), reason)
        return self._resolve({seat: self._action(seat, action)})

    def submit(self, seat: int, action: Action | str) -> Self:
        """Sealed games: record (or replace) one seat's orders for this turn."""
        if not self.simultaneous:
            reason = Reason("not_sealed", N_("this game is not played in sealed turns"))
            raise IllegalMoveError(str(action), reason)
        chosen = self._action(seat, action)
        others = tuple(item for item in self.pending if item[0] != seat)
        return dataclasses.replace(  # type: ignore[type-var]
            self, pending=tuple(sorted((*others, (seat, chosen)), key=lambda item: item[0]))
        )

    def withdraw(self, seat: int) -> Self:
        """Sealed games: take back one seat's orders."""
        remaining = tuple(item for item in self.pending if item[0] != seat)
        return dataclasses.replace(self, pending=remaining)  # type: ignore[type-var]

    def submitted(self) -> tuple[int, ...]:
        return tuple(seat for seat, _ in self.pending)

    def orders_of(self, seat: int) -> Action | None:
        return dict(self.pending).get(seat)

    def resolve(self) -> Resolution:
        """Sealed games: apply everyone's orders at once, defaults for missing seats."""
        if self.is_over:
            raise GameOverError("", GAME_ENDED)
        given = dict(self.pending)
        actions = {seat: given.get(seat, self.default_action(seat)) for seat in self.to_act}
        return dataclasses.replace(self, pending=())._resolve(actions)  # type: ignore[type-var]

    # -- output --------------------------------------------------------------------------

    @abstractmethod
    def position(self) -> str:
        """The one-line position string (C-3): the public position only."""

    @abstractmethod
    def ascii(self, viewer: int | None = None) -> str:
        """The board as monospaced text, at most 80 columns."""

    @abstractmethod
    def grid(self, viewer: int | None = None) -> Grid:
        """The board as cells, for HTML."""

    def legend_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        """The words :meth:`ascii` draws around the board (legend lines, captions), each as
        reasons whose English is exactly as drawn there (the service shows them in the
        reader's language; the board's marks stay); games with words of their own override
        this."""
        return ()

    def info(self, viewer: int | None = None) -> tuple[str, ...]:
        """Extra lines under the board (scores, supplies, dice...), in English: each of
        :meth:`info_why` rendered."""
        return tuple(line.render() for line in self.info_why(viewer))

    def info_why(self, viewer: int | None = None) -> tuple[Reason, ...]:
        """The lines under the board as codes, parameters and English templates (the service
        renders them in the reader's language); games with lines of their own override this."""
        return ()

    def status(self, viewer: int | None = None) -> str:
        """One line: whose turn it is, or how the game ended (:meth:`status_reason`, in
        English)."""
        return self.status_reason(viewer).render()

    def status_reason(self, viewer: int | None = None) -> Reason:
        """The status line as a code, parameters and an English template (the service
        renders it in the reader's language); games with words of their own override this."""
        names = [self.game.seat_names[seat] for seat in self.to_act]
        if self.outcome:
            result, reason = self.outcome.result, self.outcome.why or self.outcome.reason
            return Reason(
                "status_over", N_("Game over: {result} ({reason})"), result=result, reason=reason
            )
        if self.chance_outcomes():
            return Reason("status_dice", N_("Waiting for the dice"))
        if self.simultaneous:
            return Reason(
                "status_orders_due", N_("Orders due from {names}"), names=and_names(names)
            )
        return Reason("status_to_move", N_("{names} to move"), names=and_names(names))

    def view(self, viewer: int | None = None) -> View:
        """Everything ``viewer`` may see; the only way state leaves the engine."""
        own = self.orders_of(viewer) if viewer is not None else None
        return View(
            game=self.game.name,
            title=self.game.title,
            options=self.game.options,
            viewer=viewer,
            seat_names=self.game.seat_names,
            position=self.position(),
            status=self.status(viewer),
            to_act=self.to_act,
            simultaneous=self.simultaneous,
            awaiting_chance=bool(self.chance_outcomes()),
            submitted=self.submitted(),
            own_orders=None if own is None else self.format(own),
            examples=self.examples(viewer) if viewer is not None else (),
            info=self.info(viewer),
            ascii=self.ascii(viewer),
            grid=self.grid(viewer),
            outcome=self.outcome,
        )

    # -- storage -------------------------------------------------------------------------

    @abstractmethod
    def to_json(self) -> JSON:
        """Everything needed to restore this exact state (the service stores it)."""

    def _pending_json(self) -> list[list[Any]]:
        return [[seat, self.format(action)] for seat, action in self.pending]

    def _with_pending_json(self, rows: Sequence[Sequence[Any]]) -> Self:
        """Re-read stored sealed orders against this (start-of-turn) state."""
        try:
            pending = tuple((int(seat), self.parse(int(seat), text)) for seat, text in rows)
        except (NotationError, IllegalMoveError) as error:
            reason = Reason(
                "stored_orders", N_("stored orders no longer read: {error}"), error=error
            )
            raise PositionError(str(rows), reason) from error
        return dataclasses.replace(self, pending=pending)  # type: ignore[type-var]
