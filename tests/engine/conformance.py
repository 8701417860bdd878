"""Checks every registered game must pass; used by test_conformance.py."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

from engine import EngineError, Game, State, state_from_json
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


# -- legal_actions and parse agree -------------------------------------------------------

AGREEMENT_STATES = 12
LISTED_SAMPLE = 150
MUTATIONS = 40
LARGE_LISTING = 100_000
FIXED_TEXTS = ("hold", "-", "pass", "", "resign")


def sample_states(game: Game, seed: int, count: int = AGREEMENT_STATES) -> list[State]:
    """Up to ``count`` states of a seeded random playout where some seat has to act."""
    rng = random.Random(seed)
    state, seen = game.initial_state(), []
    for _ in range(MAX_STEPS):
        if state.is_over:
            break
        if outcomes := state.chance_outcomes():
            state = state.apply_chance(rng.choice(outcomes)).state
            continue
        seen.append(state)
        if state.simultaneous:
            for seat in state.to_act:
                state = state.submit(seat, state.random_action(seat, rng))
            state = state.resolve().state
        else:
            seat = state.to_act[0]
            state = state.play(seat, state.random_action(seat, rng)).state
    if len(seen) <= count:
        return seen
    return [seen[0], *sorted(rng.sample(seen[1:], count - 1), key=seen.index)]


def mutations(texts: list[str], rng: random.Random, count: int = MUTATIONS) -> list[str]:
    """Listed texts with one character changed, dropped or doubled: near misses to parse."""
    if not texts:
        return []
    alphabet = sorted({char for text in texts for char in text} | set("a1-:@ x"))
    found = []
    for _ in range(count):
        text = rng.choice(texts)
        if not text:
            continue
        at = rng.randrange(len(text))
        kind = rng.randrange(3)
        if kind == 0:
            text = text[:at] + rng.choice(alphabet) + text[at + 1 :]
        elif kind == 1:
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + text[at] + text[at:]
        found.append(text)
    return found


def check_agreement(state: State, seat: int, others: list[str], rng: random.Random) -> list[str]:
    """Every listed action reads back from its text; every text that reads is listed.

    ``others`` are texts listed in other positions (or for the other seat) to try here too.
    Returns this seat's listed texts, for the next positions to try.
    """
    listed = state.legal_actions(seat)
    count = len(listed)
    assert count, f"seat {seat} is to act but lists no action: {state.position()}"
    picked = range(count) if count <= LISTED_SAMPLE else rng.sample(range(count), LISTED_SAMPLE)
    sample = [listed[index] for index in picked]
    texts = []
    for action in sample:
        text = state.format(action)
        try:
            back = state.parse(seat, text)
        except EngineError as error:
            raise AssertionError(
                f"listed {text!r} does not parse for seat {seat} at {state.position()}: {error}"
            ) from None
        assert back == action, f"parse(format(a)) != a for listed {text!r}"
        texts.append(text)
    # A huge lazy listing (Nelaxtam's invasion) answers membership itself.
    known = listed if count > LARGE_LISTING else set(listed)
    candidates = [*FIXED_TEXTS, *state.examples(seat), *others, *mutations(texts, rng)]
    for text in dict.fromkeys(candidates):
        try:
            action = state.parse(seat, text)
        except EngineError:
            continue
        assert action in known, (
            f"{text!r} parses for seat {seat} but is not listed at {state.position()}"
        )
    return texts
