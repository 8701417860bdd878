"""Seeded game states and mail contexts for the template tests, for every registered game."""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import engine
from engine import Event, Resolution, State
from service.mail.boards import changed_squares, reader_view, should_flip
from service.mail.render import KINDS

HOSTILE_NAME = '<script>alert(1)</script> & "Bob"'
"""A player-supplied name no template may pass to HTML unescaped."""
OPPONENT_NAMES = ("Ann", "Cyd <b>bold</b>", "Dee", "Eve")
DEADLINE = datetime(2025, 3, 1, 17, 0, tzinfo=UTC)
SEED = 20250301
REPLY_TO = "play+aeiqifzx3zmkevgnkfgndqf7uu@pbem.example"
MAX_STEPS = 4000
BOARD_GAMES = tuple(
    n for n in engine.names() if engine.game_class(n).__module__.startswith("engine.")
)
"""The rule books' games: boards with a grid. Test-only games (the service tests register
some when run in the same session) draw no grid and have no snapshots."""


@dataclass(frozen=True)
class Scenario:
    """One game at three moments: before the first move, after one step, and over
    (``before_end``: the position before the last move or turn of orders)."""

    name: str
    initial: State
    opening: State
    step: Resolution
    mover: int
    move: str
    finished: State
    before_end: State


def _chance(state: State, rng: random.Random) -> Resolution:
    return state.apply_chance(rng.choice(state.chance_outcomes()))


def _past_chance(state: State, rng: random.Random) -> State:
    while state.chance_outcomes():
        state = _chance(state, rng).state
    return state


def _act(state: State, rng: random.Random) -> tuple[Resolution, int, str]:
    """One seeded move (or one turn of sealed orders): its resolution, seat and text."""
    if state.simultaneous:
        for seat in state.to_act:
            state = state.submit(seat, state.random_action(seat, rng))
        seat = state.to_act[0]
        return state.resolve(), seat, state.format(state.orders_of(seat))
    seat = state.to_act[0]
    action = state.random_action(seat, rng)
    return state.play(seat, action), seat, state.format(action)


Options = tuple[tuple[str, str], ...]
"""A game's options as sorted pairs (hashable, so scenarios are cached per variant)."""


@dataclass(frozen=True)
class Variant:
    """One way a game is played: its options and number of players (``None``: the default)."""

    name: str
    options: Options = ()
    players: int | None = None

    @property
    def id(self) -> str:
        parts = [self.name, *(value for _, value in self.options)]
        if self.players:
            parts.append(f"{self.players}p")
        return "-".join(parts)


def board_variants() -> tuple[Variant, ...]:
    """Every board size each rule-book game's options allow, and Elemento with 2, 3 and 4
    players (issue 21, point 1: every board must fit a phone)."""
    sizes = {"epaminondas": "board", "nelaxtam": "size", "anti-grid": "board"}
    found = []
    for name in BOARD_GAMES:
        game = engine.game_class(name)
        key = sizes.get(name)
        if key is not None:
            found += [Variant(name, ((key, value),)) for value in game.OPTIONS[key].choices]
        elif name == "elemento":
            found += [Variant(name, (), players) for players in (2, 3, 4)]
        else:
            found.append(Variant(name))
    return tuple(found)


@functools.cache
def scenario(name: str, options: Options = (), players: int | None = None) -> Scenario:
    rng = random.Random(SEED)
    initial = engine.new_game(name, dict(options), players).initial_state()
    opening = _past_chance(initial, rng)
    step, mover, move = _act(opening, rng)
    step = Resolution(_past_chance(step.state, rng), step.events)
    finished = before_end = step.state
    for _ in range(MAX_STEPS):
        if finished.is_over:
            break
        if finished.chance_outcomes():
            finished = _chance(finished, rng).state
        else:
            before_end, finished = finished, _act(finished, rng)[0].state
    assert finished.is_over, f"{name}: a seeded playout did not end in {MAX_STEPS} steps"
    return Scenario(name, initial, opening, step, mover, move, finished, before_end)


def _receipts(play: Scenario, game_id: int = 17) -> dict[str, Any]:
    """A resolved sealed turn's revealed orders, salts and receipts (none for moves)."""
    from service.receipts import receipt

    seats = []
    if play.opening.simultaneous:
        for seat in play.opening.to_act:
            salt = f"{seat + 1:x}" * 32
            orders = (
                play.move
                if seat == play.mover
                else play.opening.format(play.opening.default_action(seat))
            )
            seats.append(
                {
                    "seat": seat,
                    "name": play.opening.game.seat_names[seat],
                    "orders": orders,
                    "salt": salt,
                    "receipt": receipt(game_id, 1, seat, orders, salt),
                }
            )
    return {"game_id": game_id, "turn": 1, "seats": seats}


def _named_move(play: Scenario) -> str:
    return f"{play.opening.game.seat_names[play.mover]} {play.move}"


def _seat_to_act(state: State) -> int:
    return state.to_act[0] if state.to_act else 0


def _events(events: tuple[Event, ...]) -> list[dict[str, Any]]:
    return [event.to_json() for event in events]


def _game(
    state: State,
    seat: int | None,
    game_id: int = 17,
    before: State | None = None,
    move: str = "the last move of a seeded playout",
) -> dict[str, Any]:
    """A game's part of a context; with ``before``, the view is the reader's as the service
    sends it (``service.reader.view_for``): turned for the second seat, the last move marked."""
    players = list(OPPONENT_NAMES[: state.game.players])
    if seat is not None:
        players[seat] = HOSTILE_NAME
    view = state.view(seat).to_json()
    if before is not None:
        squares = changed_squares(before.grid(None), state.grid(None))
        flip = should_flip(state.game.name, seat, True)
        view = reader_view(view, flip, f"Last move: {move}", squares)
    return {
        "game_id": game_id,
        "game_url": f"https://pbem.example/games/{game_id}",
        "rules_url": f"https://pbem.example/rules/{state.game.name}",
        "view": view,
        "players": players,
    }


def context(
    kind: str, name: str, options: Options = (), players: int | None = None
) -> dict[str, Any]:
    """A full context for one mail kind, from the seeded states of game ``name`` (played with
    ``options`` and ``players``); the mails after a move show the board as the reader's."""
    play = scenario(name, options, players)
    recipient = _seat_to_act(play.opening)
    after = _seat_to_act(play.step.state)
    base = {
        "player_name": HOSTILE_NAME,
        "timezone": "Europe/Paris",
        "preferences_url": "https://pbem.example/settings",
        "unsubscribe_url": "https://pbem.example/unsubscribe/t0k3n",
    }
    opening = _game(play.opening, recipient)
    resolved = {
        **_game(play.step.state, after, before=play.opening, move=_named_move(play)),
        "events": _events(play.step.events),
    }
    by_kind: dict[str, dict[str, Any]] = {
        "invitation": {
            **_game(play.initial, None),
            "inviter": OPPONENT_NAMES[1],
            "expires": DEADLINE,
        },
        "game_started": {
            **_game(play.initial, 0),
            "deadline": DEADLINE,
            "commitment": "5e" * 32,
        },
        "your_turn": {**opening, "turn": 1, "deadline": DEADLINE},
        "orders_received": {
            **_game(_submitted(play.opening, recipient), recipient),
            "turn": 1,
            "orders": play.move,
            "receipt": "a3" * 32,
            "deadline": DEADLINE,
        },
        "turn_resolved": {
            **resolved,
            "turn": 1,
            "deadline": DEADLINE,
            "receipts": _receipts(play),
        },
        "opponent_moved": {
            **resolved,
            "mover": play.mover,
            "move": play.move,
            "deadline": DEADLINE,
        },
        "reminder": {
            **opening,
            "turn": 1,
            "deadline": DEADLINE,
            "hours_left": 5.2,
            "warning": "Miss the next deadline and you forfeit the game (one more miss loses).",
        },
        "draw_news": {
            **opening,
            "actor": (recipient + 1) % play.initial.game.players,
            "news": "offered a draw",
        },
        "takeback_news": {
            **opening,
            "actor": (recipient + 1) % play.initial.game.players,
            "news": "took back their last move, with their opponent's consent",
            "move": play.move,
        },
        "move_receipt": {**resolved, "turn": 1, "move": play.move},
        "default_orders": {
            **resolved,
            "turn": 1,
            "orders": play.move,
            "deadline": None,
            "receipts": _receipts(play),
        },
        "game_over": {
            **_game(play.finished, 0, before=play.before_end),
            "record": _record(play),
            "dice_seed": "d1" * 32 if play.initial.chance_outcomes() else None,
            "commitment": "5e" * 32 if play.initial.chance_outcomes() else None,
            "receipts": _receipts(play),
        },
        "error_reply": {
            **opening,
            "received": "b2-b4 please\n\nSent from my phone\n" + "x" * 120,
            "error": "illegal move 'b2-b4': no piece of yours stands on b2 (C-2)",
        },
        "help": opening,
        "reply_receipt": {
            **opening,
            "turn": 1,
            "deadline": DEADLINE,
            "headline": "Draw offer declined",
        },
        "confirm_resign": {**opening, "said": "'Should I resign? <b>Hmm</b>'"},
        "confirm_reply": {
            **opening,
            "turn": 1,
            "league": None,
            "held": f"{play.move}\n<b>draw?</b>",
            "why": "the mail carries no DKIM signature of example.org, so its From "
            "cannot be trusted",
            "confirm_url": "https://pbem.example/confirm/" + "a2" * 20,
            "replaced": True,
        },
        "digest": {
            "date": DEADLINE,
            "games": [
                {**opening, "deadline": DEADLINE, "events": [], "reply_to": REPLY_TO},
                {
                    **resolved,
                    "game_id": 18,
                    "game_url": "https://pbem.example/games/18",
                    "deadline": None,
                    "reply_to": REPLY_TO,
                },
            ],
        },
        "vacation": {
            **opening,
            "away": OPPONENT_NAMES[1],
            "until": DEADLINE,
            "deadline": DEADLINE,
        },
        **_league_kinds(play),
        "sign_in": {
            **NO_GAME,
            "sign_in_url": "https://pbem.example/sign-in/7.1764110000.abcdefghijklmnopqrst",
            "expires": DEADLINE,
            "minutes": 30,
            "ask_url": "https://pbem.example/sign-in",
        },
    }
    assert set(by_kind) == set(KINDS)
    return {**base, **by_kind[kind]}


NO_GAME = {
    "game_id": None,
    "game_url": None,
    "rules_url": "https://pbem.example/rules",
    "view": None,
    "players": None,
}
LEAGUE = {
    "id": 3,
    "name": "Winter <League> & Cup",
    "title": "Epaminondas",
    "format": "a round robin",
    "time_control": "3 days a turn",
    "starts_at": DEADLINE,
    "url": "https://pbem.example/leagues/3",
    "api_url": "https://pbem.example/api/v1/leagues/3",
    "game_words": "Epaminondas on a 14×12 board, with the anti-copy rule",
    "players": "6 so far (4 accepted, 2 invited); 2 in each game",
    "scoring": (
        "a win 1 point, a draw ½ point, a loss 0 points, a bye 1 point, a loss by forfeit 0 points"
    ),
    "forfeit": "a move not made by its deadline loses the game on time, a forfeit",
    "reliability": "",
}


def _league_kinds(play: Scenario) -> dict[str, dict[str, Any]]:
    """League mails: none but ``league_result`` belongs to a game."""
    rows = [
        {"cells": ["1", HOSTILE_NAME, "2", "1.5", "2/0/0", "1612"], "line": "  1 Bob  2  1.5"},
        {"cells": ["2", OPPONENT_NAMES[1], "0", "0", "0/0/2", ""], "line": "  2 Cyd  0  0"},
    ]
    table = {
        "columns": ["#", "Player", "Pts", "SB", "W/D/L", "Rating"],
        "header": "  # Player  Pts  SB",
        "rows": rows,
        "legend": "SB = Sonneborn-Berger",
    }
    return {
        "league_invitation": {
            **NO_GAME,
            "league": LEAGUE,
            "inviter": OPPONENT_NAMES[1],
            "expires": DEADLINE,
        },
        "league_answer": {**NO_GAME, "league": LEAGUE, "accepted": True},
        "league_standings": {
            **NO_GAME,
            "league": LEAGUE,
            "round": 2,
            "final": False,
            "standings": table,
        },
        "league_message": {
            **NO_GAME,
            "league": LEAGUE,
            "sender": OPPONENT_NAMES[1],
            "subject_line": "Round 3 <soon>",
            "message": "Round 3 starts on Monday.\nresign",
        },
        "league_result": {
            **_game(play.finished, 0, before=play.before_end),
            "league": LEAGUE,
            "actor": OPPONENT_NAMES[1],
            "action": "corrected the result",
            "result": "0-1",
            "reason": "a <scoring> slip",
        },
    }


def _submitted(state: State, seat: int) -> State:
    """The opening with the recipient's sealed orders in, for a sealed game."""
    if not state.simultaneous:
        return state
    return state.submit(seat, state.random_action(seat, random.Random(SEED)))


def _record(play: Scenario) -> str:
    """A compact record like the service's: the first moves, then the result."""
    outcome = play.finished.outcome
    assert outcome is not None
    return f'[Game "{play.initial.game.title}"]\n\n1. {play.move} ... {outcome.result}'
