"""Checks every registered game must pass; used by test_conformance.py."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from engine import Game, State, state_from_json
from engine.registry import game_class

MAX_STEPS = 4000
MAX_COLUMNS = 80


def configurations(name: str) -> Iterator[Game]:
    """The default game, each option value on its own, and each player count."""
    cls = game_class(name)
    yield cls()
    for key, spec in cls.OPTIONS.items():
        for value in spec.choices:
            if value != spec.default:
                yield cls({key: value})
    for players in cls.player_counts[1:]:
        yield cls(players=players)


def check_round_trips(state: State) -> None:
    restored = state_from_json(json.loads(json.dumps(state.to_json())))
    assert restored == state, "JSON round trip changed the state"
    position = state.position()
    assert "\n" not in position
    assert state.game.parse_position(position).position() == position


def check_views(state: State) -> None:
    for viewer in (*range(state.game.players), None):
        view = state.view(viewer)
        json.dumps(view.to_json())
        too_wide = [line for line in view.ascii.splitlines() if len(line) > MAX_COLUMNS]
        assert not too_wide, f"ASCII board wider than {MAX_COLUMNS} columns: {too_wide[0]!r}"


def check_notation(state: State, seat: int, action: object) -> None:
    text = state.format(action)
    assert state.parse(seat, text) == action, f"parse(format(a)) != a for {text!r}"


def check_sealed(state: State, seat: int, rng: random.Random) -> None:
    """Another seat's view must not change with what ``seat`` ordered."""
    first = state.submit(seat, state.random_action(seat, rng))
    second = state.submit(seat, state.random_action(seat, rng))
    for viewer in (*range(state.game.players), None):
        if viewer != seat:
            assert first.view(viewer) == second.view(viewer), "sealed orders leaked into a view"


def playout(game: Game, seed: int) -> State:
    """Play a seeded random game to the end, checking every state on the way."""
    rng = random.Random(seed)
    state = game.initial_state()
    for _ in range(MAX_STEPS):
        check_round_trips(state)
        check_views(state)
        if state.is_over:
            return state
        if outcomes := state.chance_outcomes():
            state = state.apply_chance(rng.choice(outcomes)).state
        elif state.simultaneous:
            for seat in state.to_act:
                check_sealed(state, seat, rng)
                action = state.random_action(seat, rng)
                check_notation(state, seat, action)
                state = state.submit(seat, action)
                check_round_trips(state)
            state = state.resolve().state
        else:
            seat = state.to_act[0]
            action = state.random_action(seat, rng)
            check_notation(state, seat, action)
            state = state.play(seat, action).state
    raise AssertionError(f"no end after {MAX_STEPS} steps: {state.position()}")
