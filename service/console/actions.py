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

from service import games, i18n, players
from service.errors import BadRequest, Unprocessable
from service.i18n import N_
from service.leagues import director, leagues
from service.models import Player

Form = Mapping[str, str]
MAX_ID = 2**31 - 1


def _(message: str, **values: Any) -> str:
    """``message`` in the page's language (:func:`i18n.in_locale`, set by the console's
    views), else English. Labels, hints and buttons are marked ``N_`` where they are defined
    and translated on the page."""
    return i18n.gettext(i18n.current(), message, **values)


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    kind: str = "text"
    """``text``, ``textarea``, ``number``, ``seat`` (a seated player), ``forfeit``."""
    hint: str = ""


REASON = Field("reason", N_("Reason (goes in the audit log)"), "textarea")


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
            raise BadRequest(
                N_("there is no player %(typed)s: player numbers go up to %(most)s"),
                values={"typed": typed, "most": MAX_ID},
            )
        return int(typed)
    if "@" in typed:
        player = players.by_address(session, typed)
        if player is None:
            raise Unprocessable(
                N_("no player has the address \u201c%(typed)s\u201d"), values={"typed": typed}
            )
        return player.id
    raise BadRequest(
        N_(
            "\u201c%(typed)s\u201d is neither a player number nor an e-mail address: give one "
            "of them (the players search finds both)"
        ),
        values={"typed": typed},
    )


def _name(session: Session, text: str) -> str:
    try:
        player = players.get(session, _player_ref(session, text))
    except Exception:
        return f"\u201c{text.strip()}\u201d"
    return _("%(name)s (player %(number)s)", name=player.name, number=player.id)


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
    values = {"game": game_id, "result": form.get("result", "").strip(), "why": _why(form)}
    forfeit = form.get("forfeit")
    if forfeit == "time":
        return _(
            "Set the result of game %(game)s to %(result)s, a loss on time because %(why)s",
            **values,
        )
    if forfeit == "missed_turns":
        return _(
            "Set the result of game %(game)s to %(result)s, a forfeit for missed turns "
            "because %(why)s",
            **values,
        )
    return _("Set the result of game %(game)s to %(result)s because %(why)s", **values)


def _league_name(session: Session, league_id: int) -> str:
    name = leagues.get(session, league_id).name
    return _("league %(number)s (%(name)s)", number=league_id, name=name)


def _game_reason(tool: Callable[..., Any]) -> Callable[[Session, int, Player, Form], Any]:
    return lambda session, target, actor, form: tool(session, target, actor, form.get("reason"))


GAME_ACTIONS = (
    Action(
        "process",
        "game",
        N_("Process the turn now"),
        (REASON,),
        _game_reason(director.process_now),
        lambda s, gid, form: _(
            "Process game %(game)s now (resolve its open sealed turn; seats without orders get "
            "the default) because %(why)s",
            game=gid,
            why=_why(form),
        ),
    ),
    Action(
        "extend",
        "game",
        N_("Extend the deadline"),
        (
            Field(
                "days", N_("Days to add"), "number", N_("from 0 to 365; 1.5 is a day and a half")
            ),
            REASON,
        ),
        lambda s, gid, actor, form: director.extend_deadline(
            s, gid, actor, _number(form.get("days", "")), form.get("reason")
        ),
        lambda s, gid, form: _(
            "Extend game %(game)s by %(days)s days because %(why)s",
            game=gid,
            days=form.get("days", "").strip(),
            why=_why(form),
        ),
    ),
    Action(
        "replace",
        "game",
        N_("Replace a player"),
        (
            Field("player", N_("Player leaving"), "seat"),
            Field("by", N_("Player taking the seat"), "text", N_("their player number or address")),
            REASON,
        ),
        _replace,
        lambda s, gid, form: _(
            "Replace %(leaving)s in game %(game)s by %(taking)s because %(why)s",
            leaving=_name(s, form.get("player", "")),
            game=gid,
            taking=_name(s, form.get("by", "")),
            why=_why(form),
        ),
    ),
    Action(
        "pause",
        "game",
        N_("Pause the clock"),
        (REASON,),
        _game_reason(director.pause_game),
        lambda s, gid, form: _("Pause game %(game)s because %(why)s", game=gid, why=_why(form)),
    ),
    Action(
        "resume",
        "game",
        N_("Resume the clock"),
        (REASON,),
        _game_reason(director.resume_game),
        lambda s, gid, form: _("Resume game %(game)s because %(why)s", game=gid, why=_why(form)),
    ),
    Action(
        "result",
        "game",
        N_("Set the result"),
        (
            Field(
                "result",
                N_("Result"),
                "text",
                N_("1-0, 0-1, 1/2-1/2 for two players; places such as 1-3-2"),
            ),
            Field("forfeit", N_("A forfeit?"), "forfeit"),
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
        N_("Mail everyone in the league"),
        (
            Field("subject", N_("Subject (goes in the audit log as the reason)")),
            Field("text", N_("Message"), "textarea"),
        ),
        lambda s, lid, actor, form: director.message(
            s, lid, actor, {"subject": form.get("subject", ""), "text": form.get("text", "")}
        ),
        lambda s, lid, form: _(
            "Mail everyone in %(league)s the message \u201c%(subject)s\u201d",
            league=_league_name(s, lid),
            subject=" ".join(form.get("subject", "").split()),
        ),
    ),
    Action(
        "pause",
        "league",
        N_("Pause the league and its games"),
        (REASON,),
        _game_reason(director.pause_league),
        lambda s, lid, form: _(
            "Pause %(league)s and its games because %(why)s",
            league=_league_name(s, lid),
            why=_why(form),
        ),
    ),
    Action(
        "resume",
        "league",
        N_("Resume the league and its games"),
        (REASON,),
        _game_reason(director.resume_league),
        lambda s, lid, form: _(
            "Resume %(league)s and its games because %(why)s",
            league=_league_name(s, lid),
            why=_why(form),
        ),
    ),
)
ACTIONS = {(a.scope, a.name): a for a in (*GAME_ACTIONS, *LEAGUE_ACTIONS)}
FORFEITS = {
    "": N_("no"),
    "time": N_("yes: a loss on time"),
    "missed_turns": N_("yes: for missed turns"),
}
"""The forfeit choices, in English (translated on the page)."""


def missing(action: Action, form: Form) -> str | None:
    """What the confirmation step asks for before it shows: every field filled in."""
    empty = [
        _(field.label).partition(" (")[0]
        for field in action.fields
        if field.kind != "forfeit" and not form.get(field.name, "").strip()
    ]
    if not empty:
        return None
    return _(
        "Fill in: %(fields)s. Every director's action needs its reason, which goes in the "
        "audit log; nothing was done.",
        fields=", ".join(empty),
    )


def seat_choices(session: Session, game_id: int) -> list[tuple[int, str]]:
    game = games.get(session, game_id)
    return [
        (
            seat.player_id,
            _("%(name)s (player %(number)s)", name=seat.player.name, number=seat.player_id),
        )
        for seat in game.seats
    ]
