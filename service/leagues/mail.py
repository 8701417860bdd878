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
        "game_words": game_in_words(league.game, league.options, league.seats),
        "players": players_line(league),
        "scoring": scoring_line(league),
        "forfeit": forfeit_line(league),
    }


# -- the terms of a league, in words (issue 21, point 7) ------------------------------------

_OPTION_WORDS: dict[tuple[str, str], dict[str, str]] = {
    ("epaminondas", "board"): {"14x12": "on a 14×12 board", "8x8": "on an 8×8 board"},
    ("epaminondas", "anti_copy"): {
        "on": "with the anti-copy rule",
        "off": "without the anti-copy rule",
    },
    ("anti-grid", "board"): {
        "large": "on the large board (16×16, 15 pawns each)",
        "small": "on the small board (12×12, 11 pawns each)",
    },
    ("anti-grid", "chain"): {"on": "with chain captures", "off": "without chain captures"},
    ("elemento", "dice"): {
        "rolled": "the dice rolled before every turn",
        "turned": "the dice turned after each turn (ELE-16)",
    },
    ("nelaxtam", "variant"): {
        "wild": "the wild variant (every troop may act)",
        "quiet": "the quiet variant (one troop acts a turn)",
    },
}


def game_in_words(name: str, options: dict[str, Any], seats: int) -> str:
    """The game and its options as a player reads them: ``Epaminondas on a 14×12 board, with
    the anti-copy rule`` (never ``board=14x12``)."""
    rules = engine.game_class(name)
    words: list[str] = []
    for key, value in sorted((options or {}).items()):
        value = str(value)
        if name == "nelaxtam" and key == "size":
            article = "an" if value.startswith("8") or value in ("11", "18") else "a"
            words.append(f"on {article} {value}×{value} board")
        elif name == "nelaxtam" and key == "sea":
            words.append(f"{value} troop{'s' * (value != '1')} arriving by sea")
        elif (name, key) in _OPTION_WORDS:
            words.append(_OPTION_WORDS[name, key].get(value, f"{key.replace('_', ' ')} {value}"))
        else:
            words.append(f"{key.replace('_', ' ')} {value}")
    board = [w for w in words if w.startswith("on ")]
    rest = [w for w in words if not w.startswith("on ")]
    text = " ".join([rules.title, *board])
    if len(rules.player_counts) > 1:
        text += f" for {seats} players"
    return ", ".join([text, *rest])


def players_line(league: League) -> str:
    """How many take part so far and how many sit at each game."""
    joined = sum(e.status == "active" for e in league.entries)
    invited = sum(e.status == "invited" for e in league.entries)
    parts = [f"{joined} accepted"] + ([f"{invited} invited"] if invited else [])
    each = "3 or 4 at each table" if league.format == "tables" else f"{league.seats} in each game"
    return f"{joined + invited} so far ({', '.join(parts)}); {each}"


def _points(value: float) -> str:
    text = "½" if value == 0.5 else f"{value:g}"
    return f"{text} point" + ("" if value == 1 else "s")


def scoring_line(league: League) -> str:
    """What a result is worth in this league's standings."""
    scoring = league.scoring
    if league.format == "knockout":
        rule = {
            "replay": "a drawn game is replayed",
            "higher_seed": "a drawn game goes to the higher seed",
            "second_seat": "a drawn game goes to the second seat",
        }[league.settings.get("draw_rule", "replay")]
        return f"knockout: the winner of each game goes on, the loser is out; {rule}"
    if league.format == "tables":
        return (
            "1 point for each player you finish ahead of at your table and ½ for each you tie "
            f"with; a round you sit out scores {_points(scoring.get('bye', 0.0))}"
        )
    return (
        f"a win {_points(scoring['win'])}, a draw {_points(scoring['draw'])}, a loss "
        f"{_points(scoring['loss'])}, a bye {_points(scoring['bye'])}, a loss by forfeit "
        f"{_points(scoring['forfeit_loss'])}"
    )


def forfeit_line(league: League) -> str:
    """What loses a game without playing it out, and what a withdrawal does."""
    control = league.time_control
    try:
        sealed = engine.new_game(league.game, league.options, league.seats).initial_state()
        simultaneous = bool(sealed.simultaneous)
    except engine.EngineError:
        simultaneous = False
    if simultaneous:
        after = control.get("forfeit_after") or 0
        if after:
            turns = "turn" if after == 1 else f"{after} turns in a row"
            rule = (
                f"missing the deadline of {turns} forfeits the game (default orders are "
                "played for each miss)"
            )
        else:
            rule = "a missed deadline plays default orders for you; no game is lost by forfeit"
    elif control.get("bank"):
        rule = "a player whose time bank runs out loses the game on time, a forfeit"
    else:
        rule = "a move not made by its deadline loses the game on time, a forfeit"
    withdrawal = league.settings.get("withdrawal", "forfeit")
    if withdrawal == "expunge":
        rule += "; a player who withdraws leaves the standings with all their games"
    else:
        rule += "; a player who withdraws loses their remaining games by forfeit"
    return rule


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
