"""Ratings kept in the database: Glicko-2 for two-player games, OpenSkill (Plackett-Luce) for
three and four, per game and board size, updated when a game ends, with a history row per
player and game.

Each finished game is one rating period (``service.tournament.ratings``). Games lost by
withdrawal are not rated (often no move was made). Players' rows are locked in id order
before their ratings are read, so two games ending at once for one player apply one after
the other. A corrected or voided result replays the ratings of that key from its first game.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from service.leagues.models import Pairing, Rating, RatingChange
from service.models import Game, GameStatus, Player, utcnow
from service.tournament.ratings import (
    Glicko2Rating,
    MultiplayerRating,
    rate_table_game,
    rate_two_player_game,
    rating_key,
)

BOARD_OPTIONS = ("board", "size")
GLICKO2, OPENSKILL = "glicko2", "openskill"


def key_of(name: str, options: dict[str, Any]) -> str:
    """``epaminondas:14x12``: the game and, where it has one, its board size option."""
    board = next((options[o] for o in BOARD_OPTIONS if o in options), None)
    return rating_key(name, None if board is None else str(board))


def system_of(players: int) -> str:
    return GLICKO2 if players == 2 else OPENSKILL


def _lock_players(session: Session, ids: Sequence[int]) -> None:
    query = select(Player.id).where(Player.id.in_(sorted(set(ids)))).order_by(Player.id)
    session.execute(query.with_for_update(key_share=True))


def _row(session: Session, player_id: int, key: str, system: str) -> Rating:
    query = select(Rating).where(
        Rating.player_id == player_id, Rating.key == key, Rating.system == system
    )
    row = session.scalar(query)
    if row is None:
        start = Glicko2Rating() if system == GLICKO2 else None
        sigma = MultiplayerRating()
        row = Rating(
            player_id=player_id,
            key=key,
            system=system,
            rating=start.rating if start else sigma.mu,
            deviation=start.deviation if start else sigma.sigma,
            volatility=start.volatility if start else None,
            games=0,
        )
        session.add(row)
        session.flush()
    return row


def rate_game(
    session: Session, game: Game, places: Sequence[int], now: datetime | None = None
) -> None:
    """Update the seated players' ratings from the finishing places of ``game``."""
    now = now or utcnow()
    ids = [seat.player_id for seat in game.seats]
    if len(ids) < 2:
        return
    _lock_players(session, ids)
    key, system = key_of(game.name, game.options), system_of(len(ids))
    rows = {pid: _row(session, pid, key, system) for pid in ids}
    if system == GLICKO2:
        score = 1.0 if places[0] < places[1] else 0.5 if places[0] == places[1] else 0.0
        current = {
            str(pid): Glicko2Rating(r.rating, r.deviation, r.volatility or 0.06)
            for pid, r in rows.items()
        }
        changes: list[Any] = rate_two_player_game(
            current, key, game.name, str(ids[0]), str(ids[1]), score
        )
        for change in changes:
            _apply(session, rows[int(change.player)], game, change.before, change.after, now)
        return
    table = {str(pid): MultiplayerRating(r.rating, r.deviation) for pid, r in rows.items()}
    placed = {str(pid): place for pid, place in zip(ids, places, strict=True)}
    for change in rate_table_game(table, key, game.name, placed):
        _apply(session, rows[int(change.player)], game, change.before, change.after, now)


def _apply(
    session: Session, row: Rating, game: Game, before: Any, after: Any, now: datetime
) -> None:
    glicko = isinstance(after, Glicko2Rating)
    row.rating = after.rating if glicko else after.mu
    row.deviation = after.deviation if glicko else after.sigma
    row.volatility = after.volatility if glicko else None
    row.games += 1
    row.updated_at = now
    session.add(
        RatingChange(
            player_id=row.player_id,
            game_id=game.id,
            key=row.key,
            system=row.system,
            rating_before=before.rating if glicko else before.mu,
            deviation_before=before.deviation if glicko else before.sigma,
            rating_after=row.rating,
            deviation_after=row.deviation,
            volatility_after=row.volatility,
            at=now,
        )
    )


def _withdrawn_games(session: Session) -> set[int]:
    query = select(Pairing.game_id, Pairing.forfeits).where(Pairing.game_id.is_not(None))
    return {
        game_id for game_id, forfeits in session.execute(query) if "withdrawal" in (forfeits or [])
    }


def rebuild(session: Session, key: str, system: str) -> None:
    """Replay every rated game of ``key`` in the order the games ended."""
    games = [
        g
        for g in session.scalars(
            select(Game)
            .where(Game.status == GameStatus.FINISHED)
            .order_by(Game.finished_at, Game.id)
        )
        if key_of(g.name, g.options) == key and system_of(g.players) == system
    ]
    _lock_players(session, [seat.player_id for g in games for seat in g.seats])
    session.execute(
        delete(RatingChange).where(RatingChange.key == key, RatingChange.system == system)
    )
    session.execute(delete(Rating).where(Rating.key == key, Rating.system == system))
    skipped = _withdrawn_games(session)
    for game in games:
        if game.id not in skipped and game.result:
            rate_game(session, game, game.result["places"], game.finished_at)


def display(row: Rating) -> float:
    """The number shown: the Glicko-2 rating, or OpenSkill's conservative μ − 3σ."""
    if row.system == GLICKO2:
        return round(row.rating, 1)
    return round(MultiplayerRating(row.rating, row.deviation).ordinal, 2)


def row_json(row: Rating) -> dict[str, Any]:
    return {
        "key": row.key,
        "system": row.system,
        "rating": display(row),
        "deviation": round(row.deviation, 2),
        "volatility": row.volatility,
        "mu": row.rating if row.system == OPENSKILL else None,
        "sigma": row.deviation if row.system == OPENSKILL else None,
        "games": row.games,
        "updated_at": row.updated_at.isoformat(),
    }


def current(session: Session, player_id: int) -> list[dict[str, Any]]:
    """A player's current ratings, one per key and system: Glicko-2 with its deviation (RD)
    and volatility, OpenSkill with its μ and σ (``rating`` is the μ − 3σ shown)."""
    rows = session.scalars(
        select(Rating).where(Rating.player_id == player_id).order_by(Rating.key, Rating.system)
    )
    return [row_json(row) for row in rows]


def of_player(session: Session, player_id: int) -> dict[str, Any]:
    """A player's current ratings and their history, newest first."""
    history = session.scalars(
        select(RatingChange)
        .where(RatingChange.player_id == player_id)
        .order_by(RatingChange.id.desc())
        .limit(500)
    )
    return {
        "player": player_id,
        "ratings": current(session, player_id),
        "history": [
            {
                "game": change.game_id,
                "key": change.key,
                "system": change.system,
                "before": round(change.rating_before, 2),
                "after": round(change.rating_after, 2),
                "deviation": round(change.deviation_after, 2),
                "at": change.at.isoformat(),
            }
            for change in history
        ],
    }


def for_players(
    session: Session, player_ids: Sequence[int], key: str, system: str
) -> dict[int, dict[str, Any]]:
    """Current ratings under one key, by player id (unrated players are absent)."""
    query = select(Rating).where(
        Rating.player_id.in_(list(player_ids)), Rating.key == key, Rating.system == system
    )
    return {row.player_id: row_json(row) for row in session.scalars(query)}
