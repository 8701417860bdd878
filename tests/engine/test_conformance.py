"""Every registered game: random playouts to the end with round trips and secrecy checks."""

from __future__ import annotations

import random

import pytest

from engine import names, new_game
from tests.engine.conformance import check_agreement, configurations, playout, sample_states

CASES = [(name, game) for name in names() for game in configurations(name)]


@pytest.mark.parametrize(("name", "game"), CASES, ids=[f"{n}-{g!r}" for n, g in CASES])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playout_reaches_an_end(name: str, game, seed: int) -> None:
    final = playout(game, seed)
    assert final.outcome is not None
    assert len(final.outcome.places) == game.players


def test_every_game_is_registered() -> None:
    assert set(names()) >= {"epaminondas"}


@pytest.mark.parametrize(("name", "game"), CASES, ids=[f"{n}-{g!r}" for n, g in CASES])
def test_listed_actions_parse_and_parsed_actions_are_listed(name: str, game) -> None:
    """Random positions from a playout: legal_actions and parse agree, for every seat to act,
    tried also with texts listed elsewhere in the game and with near misses of listed ones."""
    rng = random.Random(7)
    seen: list[str] = []
    for state in sample_states(game, seed=3):
        for seat in state.to_act:
            others = rng.sample(seen, min(len(seen), 40))
            seen += check_agreement(state, seat, others, rng)[:20]


HAND_MADE = [
    # NEL-10 quiet: troop 2's one order would stack it on troop 1, so only hold is listed.
    (
        "nelaxtam",
        {"size": "8", "variant": "quiet"},
        "......Ao/......../......../......../......../......../.2....../1....... 3 0",
    ),
    # ELE-19 in the rule book's five-field form, 3 players, East to complete rank 1.
    ("elemento", {}, "..../..../..../fWe. FFWEEAAfwweaa 0-0-0 2 G+B"),
]


@pytest.mark.parametrize(("name", "options", "text"), HAND_MADE)
def test_listed_and_parsed_actions_agree_in_hand_made_positions(
    name: str, options: dict[str, str], text: str
) -> None:
    players = 3 if name == "elemento" else 2
    state = new_game(name, options, players).parse_position(text)
    rng = random.Random(1)
    for seat in state.to_act:
        check_agreement(state, seat, [], rng)
