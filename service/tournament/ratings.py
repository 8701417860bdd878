"""Ratings per game (and board size): Glicko-2 for two players, OpenSkill for tables.

Glicko-2 comes from ``glicko2-py`` (``glicko2.math.update_rating``, a pure function of
Glickman's algorithm). The more downloaded ``glicko2`` package (deepy/glicko2 2.1.0) was
measured and rejected: its volatility step uses the rating μ where Glickman's f(x) has
the deviation φ, so the same games give a different volatility at a different rating
level (0.0601 against 0.0666 for one case shifted by 700 points). Both install the
module ``glicko2``, so only one can be present.

Each finished game is its own rating period (both players rated from their ratings
before the game), which is how online servers apply Glicko-2 game by game.
Multiplayer games use OpenSkill's Plackett-Luce model, which rates a finishing order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from glicko2.math import mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi, update_rating
from openskill.models import PlackettLuce

from service.tournament.core import Forfeit, PlayerId, Result

GLICKO2_TAU = 0.5  # Glickman suggests 0.3–1.2; smaller keeps volatility steadier


@dataclass(frozen=True)
class Glicko2Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


@dataclass(frozen=True)
class MultiplayerRating:
    mu: float = 25.0
    sigma: float = 25.0 / 3

    @property
    def ordinal(self) -> float:
        """A conservative display value (μ − 3σ) that rises as the system grows sure."""
        return self.mu - 3 * self.sigma


Rating = TypeVar("Rating", Glicko2Rating, MultiplayerRating)


@dataclass(frozen=True)
class RatingChange(Generic[Rating]):
    """One rating history entry: a player's rating before and after one game."""

    player: PlayerId
    key: str
    game: str
    before: Rating
    after: Rating


def rating_key(game: str, board_size: str | None = None) -> str:
    """Ratings are kept apart per game and per board size: ``"go"`` or ``"go:9x9"``."""
    return game if board_size is None else f"{game}:{board_size}"


def is_rated(result: Result) -> bool:
    """Games lost on time or on missed turns were under way and count; byes and
    withdrawals (often before a move) do not."""
    return not result.pairing.is_bye and result.forfeit is not Forfeit.WITHDRAWAL


def glicko2_period(
    player: Glicko2Rating,
    games: Sequence[tuple[Glicko2Rating, float]],
    tau: float = GLICKO2_TAU,
) -> Glicko2Rating:
    """The player's rating after a rating period of (opponent, score 1/½/0) games."""
    updated = update_rating(
        rating_to_mu(player.rating),
        rd_to_phi(player.deviation),
        player.volatility,
        [(rating_to_mu(o.rating), rd_to_phi(o.deviation), score) for o, score in games],
        tau,
    )
    return Glicko2Rating(mu_to_rating(updated.mu), phi_to_rd(updated.phi), updated.sigma)


def rate_two_player_game(
    ratings: Mapping[PlayerId, Glicko2Rating],
    key: str,
    game: str,
    first: PlayerId,
    second: PlayerId,
    first_score: float,
) -> list[RatingChange[Glicko2Rating]]:
    """History entries for both players; unrated players start at the default rating."""
    a, b = ratings.get(first, Glicko2Rating()), ratings.get(second, Glicko2Rating())
    return [
        RatingChange(first, key, game, a, glicko2_period(a, [(b, first_score)])),
        RatingChange(second, key, game, b, glicko2_period(b, [(a, 1.0 - first_score)])),
    ]


_PLACKETT_LUCE = PlackettLuce()


def rate_table_game(
    ratings: Mapping[PlayerId, MultiplayerRating],
    key: str,
    game: str,
    places: Mapping[PlayerId, int],
) -> list[RatingChange[MultiplayerRating]]:
    """History entries for every seat of a multiplayer game from finishing places
    (1 is best, tied players share a place)."""
    players = list(places)
    before = [ratings.get(p, MultiplayerRating()) for p in players]
    teams = [[_PLACKETT_LUCE.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    rated = _PLACKETT_LUCE.rate(teams, ranks=[float(places[p]) for p in players])
    return [
        RatingChange(p, key, game, old, MultiplayerRating(team[0].mu, team[0].sigma))
        for p, old, team in zip(players, before, rated, strict=True)
    ]
