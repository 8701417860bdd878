"""The director's actions the console offers, each a form, a confirmation and one call of the
very function the API and ``pbem league`` call (``service/leagues/director.py``): that function
checks who may act, validates, writes the audit log and mails whoever it mails. Here the form's
text fields become the function's arguments and nothing more; its refusals (``ServiceError``)
come back to the page as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from service import games, players
from service.errors import BadRequest, Unprocessable
from service.leagues import director, leagues
from service.models import Player

Form = Mapping[str, str]
MAX_ID = 2**31 - 1


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"
    """``text``, ``textarea``, ``number``, ``seat`` (a seated player), ``forfeit``."""
    hint: str = ""


REASON = Field("reason", "Reason (goes in the audit log)", "textarea")


@dataclass(frozen=True)
class Action:
    name: str
    scope: str
    """``game`` or ``league``: what the number in the address is."""
    button: str
    fields: tuple[Field, ...]
    run: Callable[[Session, int, Player, Form], Any]
    confirm: Callable[[Session, int, Form], str]
    """The sentence the confirmation page asks about: what will be done, and why."""


def _number(text: str) -> Any:
    """``2`` or ``1.5`` as a number; anything else as typed, for the director function to
    refuse in its own words."""
    try:
        value = float(text)
    except ValueError:
        return text
    return int(value) if value.is_integer() else value


def _player_ref(session: Session, text: str) -> int:
    """A player typed as an id or an address."""
    typed = text.strip()
    if typed.isascii() and typed.isdigit():
        if not 1 <= int(typed) <= MAX_ID:
            raise BadRequest(f"there is no player {typed}: player numbers go up to {MAX_ID}")
        return int(typed)
    if "@" in typed:
        player = players.by_address(session, typed)
        if player is None:
            raise Unprocessable(f"no player has the address \u201c{typed}\u201d")
        return player.id
    raise BadRequest(
        f"\u201c{typed}\u201d is neither a player number nor an e-mail address: give one of "
        "them (the players search finds both)"
    )


def _name(session: Session, text: str) -> str:
    try:
        player = players.get(session, _player_ref(session, text))
    except Exception:
        return f"\u201c{text.strip()}\u201d"
    return f"{player.name} (player {player.id})"


def _why(form: Form) -> str:
    return " ".join(form.get("reason", "").split())


def _replace(session: Session, game_id: int, actor: Player, form: Form) -> Any:
    data = {
        "player": _number(form.get("player", "")),
        "by": _player_ref(session, form.get("by", "")),
        "reason": form.get("reason"),
    }
    return director.replace_player(session, game_id, actor, data)


def _result(session: Session, game_id: int, actor: Player, form: Form) -> Any:
    data = {
        "result": form.get("result", "").strip(),
        "forfeit": form.get("forfeit") or None,
        "reason": form.get("reason"),
    }
    return director.set_result(session, game_id, actor, data)


def _result_words(session: Session, game_id: int, form: Form) -> str:
    forfeit = form.get("forfeit")
    kind = {"time": ", a loss on time", "missed_turns": ", a forfeit for missed turns"}
    return (
        f"Set the result of game {game_id} to {form.get('result', '').strip()}"
        f"{kind.get(forfeit or '', '')} because {_why(form)}"
    )


def _league_name(session: Session, league_id: int) -> str:
    return f"league {league_id} ({leagues.get(session, league_id).name})"


def _game_reason(tool: Callable[..., Any]) -> Callable[[Session, int, Player, Form], Any]:
    return lambda session, target, actor, form: tool(session, target, actor, form.get("reason"))


GAME_ACTIONS = (
    Action(
        "process",
        "game",
        "Process the turn now",
        (REASON,),
        _game_reason(director.process_now),
        lambda s, gid, form: (
            f"Process game {gid} now (resolve its open sealed turn; seats without orders get "
            f"the default) because {_why(form)}"
        ),
    ),
    Action(
        "extend",
        "game",
        "Extend the deadline",
        (Field("days", "Days to add", "number", "from 0 to 365; 1.5 is a day and a half"), REASON),
        lambda s, gid, actor, form: director.extend_deadline(
            s, gid, actor, _number(form.get("days", "")), form.get("reason")
        ),
        lambda s, gid, form: (
            f"Extend game {gid} by {form.get('days', '').strip()} days because {_why(form)}"
        ),
    ),
    Action(
        "replace",
        "game",
        "Replace a player",
        (
            Field("player", "Player leaving", "seat"),
            Field("by", "Player taking the seat", "text", "their player number or address"),
            REASON,
        ),
        _replace,
        lambda s, gid, form: (
            f"Replace {_name(s, form.get('player', ''))} in game {gid} by "
            f"{_name(s, form.get('by', ''))} because {_why(form)}"
        ),
    ),
    Action(
        "pause",
        "game",
        "Pause the clock",
        (REASON,),
        _game_reason(director.pause_game),
        lambda s, gid, form: f"Pause game {gid} because {_why(form)}",
    ),
    Action(
        "resume",
        "game",
        "Resume the clock",
        (REASON,),
        _game_reason(director.resume_game),
        lambda s, gid, form: f"Resume game {gid} because {_why(form)}",
    ),
    Action(
        "result",
        "game",
        "Set the result",
        (
            Field(
                "result",
                "Result",
                "text",
                "1-0, 0-1, 1/2-1/2 for two players; places such as 1-3-2",
            ),
            Field("forfeit", "A forfeit?", "forfeit"),
            REASON,
        ),
        _result,
        _result_words,
    ),
)
LEAGUE_ACTIONS = (
    Action(
        "message",
        "league",
        "Mail everyone in the league",
        (
            Field("subject", "Subject (goes in the audit log as the reason)"),
            Field("text", "Message", "textarea"),
        ),
        lambda s, lid, actor, form: director.message(
            s, lid, actor, {"subject": form.get("subject", ""), "text": form.get("text", "")}
        ),
        lambda s, lid, form: (
            f"Mail everyone in {_league_name(s, lid)} the message "
            f"\u201c{' '.join(form.get('subject', '').split())}\u201d"
        ),
    ),
    Action(
        "pause",
        "league",
        "Pause the league and its games",
        (REASON,),
        _game_reason(director.pause_league),
        lambda s, lid, form: f"Pause {_league_name(s, lid)} and its games because {_why(form)}",
    ),
    Action(
        "resume",
        "league",
        "Resume the league and its games",
        (REASON,),
        _game_reason(director.resume_league),
        lambda s, lid, form: f"Resume {_league_name(s, lid)} and its games because {_why(form)}",
    ),
)
ACTIONS = {(a.scope, a.name): a for a in (*GAME_ACTIONS, *LEAGUE_ACTIONS)}
FORFEITS = {"": "no", "time": "yes: a loss on time", "missed_turns": "yes: for missed turns"}


def missing(action: Action, form: Form) -> str | None:
    """What the confirmation step asks for before it shows: every field filled in."""
    empty = [
        field.label.partition(" (")[0]
        for field in action.fields
        if field.kind != "forfeit" and not form.get(field.name, "").strip()
    ]
    if not empty:
        return None
    return (
        f"Fill in: {', '.join(empty)}. Every director's action needs its reason, which goes "
        "in the audit log; nothing was done."
    )


def seat_choices(session: Session, game_id: int) -> list[tuple[int, str]]:
    game = games.get(session, game_id)
    return [
        (seat.player_id, f"{seat.player.name} (player {seat.player_id})") for seat in game.seats
    ]
