"""Every registered game: random playouts to the end with round trips and secrecy checks."""

from __future__ import annotations

import pytest

from engine import names
from tests.engine.conformance import configurations, playout

CASES = [(name, game) for name in names() for game in configurations(name)]


@pytest.mark.parametrize(("name", "game"), CASES, ids=[f"{n}-{g!r}" for n, g in CASES])
@pytest.mark.parametrize("seed", [1, 2])
def test_random_playout_reaches_an_end(name: str, game, seed: int) -> None:
    final = playout(game, seed)
    assert final.outcome is not None
    assert len(final.outcome.places) == game.players


def test_every_game_is_registered() -> None:
    assert set(names()) >= {"epaminondas"}
