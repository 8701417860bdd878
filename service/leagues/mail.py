"""League mails, through ``notify.queue_mail``: invitations, standings after each round,
directors' messages, and results a director set, corrected or voided.

An invitation's Reply-To is the player's signed league address (``make_league_address``): a
reply saying ``accept`` or ``decline`` is read by the mail gateway, which confirms it with
``league_answer`` (Reply-To the same address, so the player may change their mind).

Each is written in the transaction of the change that causes it; standings go out once per
round because only the transaction that closes the round writes them (and their outbox key
says so too).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

import engine
from service import notify
from service.leagues.models import Entry, League
from service.mail.addresses import make_league_address
from service.models import Game, Player

FORMAT_NAMES = {
    "round_robin": "a round robin",
    "double_round_robin": "a double round robin",
    "swiss": "a Swiss tournament",
    "knockout": "a knockout",
    "tables": "multiplayer tables",
}
TIEBREAK_LABELS = {
    "head_to_head": ("H2H", "head-to-head"),
    "sonneborn_berger": ("SB", "Sonneborn-Berger"),
    "buchholz": ("Bh", "Buchholz"),
    "median_buchholz": ("MBh", "median Buchholz"),
    "wins": ("W", "wins"),
}
NAME_WIDTH = 22


def league_context(session: Session, league: League) -> dict[str, Any]:
    settings = notify.settings_of(session)
    control = league.time_control
    bank = control.get("bank")
    days = f"{control['days']:g} days a turn" if not bank else "a time bank"
    return {
        "id": league.id,
        "name": league.name,
        "title": engine.game_class(league.game).title,
        "format": FORMAT_NAMES[league.format],
        "time_control": days,
        "starts_at": league.starts_at,
        "url": f"{settings.public_url}/leagues/{league.id}",
        "api_url": f"{settings.public_url}/api/v1/leagues/{league.id}",
    }


def _players(league: League) -> list[Player]:
    return [e.player for e in league.entries if e.status in ("active", "withdrawn")]


def reply_address(session: Session, league: League, player: Player) -> str:
    """The signed address a player answers an invitation to ``league`` at."""
    settings = notify.settings_of(session)
    return make_league_address(settings.secret(), settings.mail_domain, league.id, player.id)


def invitation(session: Session, league: League, entry: Entry, inviter: Player | None) -> None:
    notify.queue_mail(
        session,
        kind="league_invitation",
        to=entry.player,
        game=None,
        context={
            "league": league_context(session, league),
            "inviter": inviter.name if inviter else "The tournament director",
        },
        reply_to=reply_address(session, league, entry.player),
    )


def answered(
    session: Session, league: League, player: Player, accepted: bool, in_reply_to: str | None
) -> None:
    """Confirm an answer to an invitation that came by mail (threaded under that mail)."""
    notify.queue_mail(
        session,
        kind="league_answer",
        to=player,
        game=None,
        context={"league": league_context(session, league), "accepted": accepted},
        in_reply_to=in_reply_to,
        reply_to=reply_address(session, league, player),
    )


def standings_table(document: dict[str, Any]) -> dict[str, Any]:
    """Rows for the mail: a fixed-width text line and the cells of an HTML row each."""
    names = document["tiebreaks"]
    shorts = [TIEBREAK_LABELS[n][0] for n in names]
    rows = []
    for row in document["rows"]:
        name = " ".join(row["player"]["name"].split())
        if row.get("withdrawn"):
            name += " (w)"
        short = name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"
        rating = row.get("rating")
        cells = [
            str(row["rank"]),
            name,
            f"{row['points']:g}",
            *(f"{row['tiebreaks'][n]:g}" for n in names),
            f"{row['wins']}/{row['draws']}/{row['losses']}",
            f"{rating['rating']:g}" if rating else "",
        ]
        values = "".join(f"{cell:>7}" for cell in cells[2:])
        rows.append({"cells": cells, "line": f"{cells[0]:>3} {short:<{NAME_WIDTH}}{values}"})
    columns = ["#", "Player", "Pts", *shorts, "W/D/L", "Rating"]
    header = f"{'#':>3} {'Player':<{NAME_WIDTH}}" + "".join(f"{c:>7}" for c in columns[2:])
    legend = ", ".join(f"{TIEBREAK_LABELS[n][0]} = {TIEBREAK_LABELS[n][1]}" for n in names)
    return {"columns": columns, "header": header, "rows": rows, "legend": legend}


def standings(
    session: Session,
    league: League,
    round_no: int,
    standings_json: dict[str, Any],
    final: bool = False,
    next_round_at: datetime | None = None,
) -> None:
    """Mail the standings (``leagues.standings_json``) after round ``round_no``;
    ``next_round_at``: when the next round starts by the schedule, None when it starts now."""
    table = standings_table(standings_json)
    context = {
        "league": league_context(session, league),
        "round": round_no,
        "final": final,
        "standings": table,
        "next_round_at": next_round_at,
    }
    which = "final" if final else f"round{round_no}"
    for player in _players(league):
        notify.queue_mail(
            session,
            kind="league_standings",
            to=player,
            game=None,
            context=context,
            key=f"league:{league.id}:{which}:{player.id}",
        )


def message(session: Session, league: League, sender: str, subject: str, text: str) -> int:
    """The director's message to everyone taking part; returns how many were written."""
    sent = 0
    for player in _players(league):
        row = notify.queue_mail(
            session,
            kind="league_message",
            to=player,
            game=None,
            context={
                "league": league_context(session, league),
                "sender": sender,
                "subject_line": subject,
                "message": text,
            },
        )
        sent += row is not None
    return sent


def result(
    session: Session,
    game: Game,
    league: League | None,
    actor: str,
    action: str,
    result_text: str,
    reason: str,
) -> None:
    """Tell every seat of ``game`` what the director did to its result, and why."""
    for seat in game.seats:
        notify.queue_mail(
            session,
            kind="league_result",
            to=seat.player,
            game=game,
            context={
                "league": league_context(session, league) if league else None,
                "actor": actor,
                "action": action,
                "result": result_text,
                "reason": reason,
            },
        )
