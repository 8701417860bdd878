"""Seeded random leagues: drive a format to its end the way the service will."""

from __future__ import annotations

import random
from collections.abc import Sequence

from service.tournament.core import (
    Forfeit,
    Outcome,
    Pairing,
    PairingFormat,
    PlayerId,
    Result,
    automatic_results,
    withdrawn_players,
)

ROUND_LIMIT = 100  # a format that never ends fails the simulation instead of hanging


def random_result(pairing: Pairing, rng: random.Random, draws: bool = True) -> Result:
    assert pairing.second is not None
    roll = rng.random()
    if roll < 0.08:
        loser = rng.choice(pairing.players)
        return Result.forfeited_by(pairing, loser, rng.choice([Forfeit.TIME, Forfeit.MISSED_TURNS]))
    if roll < 0.11:
        return Result.forfeited_by(pairing, rng.choice(pairing.players), Forfeit.WITHDRAWAL)
    outcomes = [Outcome.FIRST_WON, Outcome.SECOND_WON] + ([Outcome.DRAW] if draws else [])
    return Result(pairing, rng.choice(outcomes))


def play_league(
    league: PairingFormat,
    entrants: Sequence[PlayerId],
    seed: int,
    draws: bool = True,
) -> tuple[list[list[Pairing]], list[Result]]:
    """Every round's pairings and all results, with random results, forfeits and
    withdrawals (a withdrawal forfeit withdraws the loser from the event)."""
    rng = random.Random(seed)
    rounds: list[list[Pairing]] = []
    results: list[Result] = []
    for _ in range(ROUND_LIMIT):
        pairings = league.next_round(entrants, results)
        if pairings is None:
            return rounds, results
        rounds.append(pairings)
        gone = withdrawn_players(results, ())
        decided = automatic_results(pairings, gone)
        settled = {r.pairing for r in decided}
        results += decided
        results += [random_result(p, rng, draws) for p in pairings if p not in settled]
    raise AssertionError(f"{league} did not end within {ROUND_LIMIT} rounds")
