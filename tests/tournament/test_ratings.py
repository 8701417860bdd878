"""Ratings: Glicko-2 against Glickman's worked example, OpenSkill for tables."""

from __future__ import annotations

import pytest

from service.tournament.core import Forfeit, Outcome, Pairing, Result
from service.tournament.ratings import (
    Glicko2Rating,
    MultiplayerRating,
    glicko2_period,
    is_rated,
    rate_table_game,
    rate_two_player_game,
    rating_key,
)


def test_glicko2_matches_glickmans_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system": 1500/200/0.06 beats 1400/30, loses to
    1550/100 and 1700/300 (τ = 0.5) → r' ≈ 1464.06, RD' ≈ 151.52, σ' ≈ 0.05999.
    The paper rounds its intermediate values; unrounded arithmetic gives 1464.051."""
    after = glicko2_period(
        Glicko2Rating(1500, 200, 0.06),
        [
            (Glicko2Rating(1400, 30), 1.0),
            (Glicko2Rating(1550, 100), 0.0),
            (Glicko2Rating(1700, 300), 0.0),
        ],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_glicko2_volatility_does_not_depend_on_the_rating_level() -> None:
    """The check that rejected deepy/glicko2: shifting everyone by 700 points must not
    change the outcome (a strong player losing 20 games to a much weaker one)."""
    low = glicko2_period(Glicko2Rating(1500, 50), [(Glicko2Rating(800, 50), 0.0)] * 20)
    high = glicko2_period(Glicko2Rating(2200, 50), [(Glicko2Rating(1500, 50), 0.0)] * 20)
    assert high.rating - 700 == pytest.approx(low.rating)
    assert high.volatility == pytest.approx(low.volatility)
    assert low.volatility > 0.066


def test_two_player_game_gives_history_for_both_from_pre_game_ratings() -> None:
    changes = rate_two_player_game(
        {"b": Glicko2Rating(1600, 80)}, rating_key("go", "9x9"), "game-7", "a", "b", 1.0
    )
    assert [(c.player, c.key, c.game) for c in changes] == [
        ("a", "go:9x9", "game-7"),
        ("b", "go:9x9", "game-7"),
    ]
    a, b = changes
    assert a.before == Glicko2Rating()
    assert isinstance(a.after, Glicko2Rating) and isinstance(b.after, Glicko2Rating)
    assert a.after.rating > 1500 and b.after.rating < 1600
    # The newcomer's rating moves much more than the established player's.
    assert a.after.rating - 1500 > 3 * (1600 - b.after.rating)


def test_withdrawals_and_byes_are_not_rated() -> None:
    game = Pairing("a", "b", 1, 1)
    assert is_rated(Result(game, Outcome.DRAW))
    assert is_rated(Result.forfeited_by(game, "a", Forfeit.TIME))
    assert not is_rated(Result.forfeited_by(game, "a", Forfeit.WITHDRAWAL))
    assert not is_rated(Result.bye(Pairing("a", None, 1, 2)))


def test_openskill_orders_players_by_finishing_place() -> None:
    changes = rate_table_game({}, "elemento:4p", "game-9", {"c": 3, "a": 1, "d": 4, "b": 2})
    after = {c.player: c.after for c in changes}
    assert all(isinstance(r, MultiplayerRating) for r in after.values())
    order = sorted(after, key=lambda p: after[p].ordinal, reverse=True)
    assert order == ["a", "b", "c", "d"]
    assert all(c.before == MultiplayerRating() for c in changes)


def test_openskill_tied_places_rate_equally_and_upsets_move_more() -> None:
    ratings = {
        "strong": MultiplayerRating(35, 3),
        "weak": MultiplayerRating(15, 3),
        "mid": MultiplayerRating(25, 3),
    }
    upset = {
        c.player: c.after
        for c in rate_table_game(ratings, "elemento:3p", "g", {"weak": 1, "mid": 2, "strong": 3})
    }
    expected = {
        c.player: c.after
        for c in rate_table_game(ratings, "elemento:3p", "g", {"strong": 1, "mid": 2, "weak": 3})
    }
    assert upset["weak"].mu - 15 > expected["strong"].mu - 35
    tied = {c.player: c.after for c in rate_table_game({}, "k", "g", {"x": 1, "y": 1, "z": 3})}
    assert tied["x"] == tied["y"]
