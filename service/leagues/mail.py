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

from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

import engine
from service import i18n, notify
from service.i18n import N_
from service.leagues.models import Entry, League
from service.mail.addresses import make_league_address
from service.models import Game, Player

FORMAT_NAMES = {
    "round_robin": N_("a round robin"),
    "double_round_robin": N_("a double round robin"),
    "swiss": N_("a Swiss tournament"),
    "knockout": N_("a knockout"),
    "tables": N_("multiplayer tables"),
}
"""In English; ``i18n.gettext(locale, FORMAT_NAMES[format])`` in a reader's language."""
TIEBREAK_LABELS = {
    "head_to_head": (N_("H2H"), N_("head-to-head")),
    "sonneborn_berger": (N_("SB"), N_("Sonneborn-Berger")),
    "buchholz": (N_("Bh"), N_("Buchholz")),
    "median_buchholz": (N_("MBh"), N_("median Buchholz")),
    "wins": (N_("W"), N_("wins")),
}
"""The short and long names of each tie-break, in English (translated where shown)."""
NAME_WIDTH = 22
DIRECTOR = N_("The tournament director")

Gettext = Callable[..., str]


def _words(locale: str) -> tuple[Gettext, Gettext]:
    """``_(message, **values)`` and ``ngettext(singular, plural, n, **values)`` in
    ``locale``, under the names Babel's extraction looks for."""

    def gettext(message: str, **values: Any) -> str:
        return i18n.gettext(locale, message, **values)

    def ngettext(singular: str, plural: str, n: int, **values: Any) -> str:
        return i18n.ngettext(locale, singular, plural, n, **values)

    return gettext, ngettext


def _number(value: float, locale: str) -> str:
    """``2.5`` as the reader writes it (``2,5``); English keeps Python's ``:g``."""
    return f"{value:g}" if locale == i18n.DEFAULT else i18n.format_decimal(value, locale)


def _count(value: float) -> int:
    """The plural form's count of a number that may have a fraction: below one it reads as
    one (``½ Punkt``, ``½ point``), above as a few (``1,5 Punkte``)."""
    if float(value).is_integer():
        return int(value)
    return 1 if value < 1 else 2


def league_context(session: Session, league: League, locale: str = i18n.DEFAULT) -> dict[str, Any]:
    """The league's values of a league mail, its terms in words in ``locale`` (the reader's:
    ``i18n.locale_for(player)``)."""
    _, _ngettext = _words(locale)
    settings = notify.settings_of(session)
    return {
        "id": league.id,
        "name": league.name,
        "title": engine.game_class(league.game).title,
        "format": _(FORMAT_NAMES[league.format]),
        "time_control": time_control_line(league.time_control, locale),
        "starts_at": league.starts_at,
        "url": f"{settings.public_url}/leagues/{league.id}",
        "api_url": f"{settings.public_url}/api/v1/leagues/{league.id}",
        "game_words": game_in_words(league.game, league.options, league.seats, locale),
        "players": players_line(league, locale),
        "scoring": scoring_line(league, locale),
        "forfeit": forfeit_line(league, locale),
        "reliability": reliability_line(league, locale),
    }


# -- the terms of a league, in words (issue 21, point 7) ------------------------------------


def time_control_line(control: dict[str, Any], locale: str = i18n.DEFAULT) -> str:
    """``3 days a turn``, or ``a time bank``."""
    _, ngettext = _words(locale)
    if control.get("bank"):
        return _("a time bank")
    # English says "1 days a turn" too: its text stays as it was
    return ngettext(
        "%(num)s days a turn",
        "%(num)s days a turn",
        _count(control["days"]),
        num=_number(control["days"], locale),
    )


_OPTION_WORDS: dict[tuple[str, str], dict[str, str]] = {
    ("epaminondas", "board"): {"14x12": N_("on a 14×12 board"), "8x8": N_("on an 8×8 board")},
    ("epaminondas", "anti_copy"): {
        "on": N_("with the anti-copy rule"),
        "off": N_("without the anti-copy rule"),
    },
    ("anti-grid", "board"): {
        "large": N_("on the large board (16×16, 15 pawns each)"),
        "small": N_("on the small board (12×12, 11 pawns each)"),
    },
    ("anti-grid", "chain"): {
        "on": N_("with chain captures"),
        "off": N_("without chain captures"),
    },
    ("elemento", "dice"): {
        "rolled": N_("the dice rolled before every turn"),
        "turned": N_("the dice turned after each turn (ELE-16)"),
    },
    ("nelaxtam", "variant"): {
        "wild": N_("the wild variant (every troop may act)"),
        "quiet": N_("the quiet variant (one troop acts a turn)"),
    },
}


def game_in_words(
    name: str, options: dict[str, Any], seats: int, locale: str = i18n.DEFAULT
) -> str:
    """The game and its options as a player reads them: ``Epaminondas on a 14×12 board, with
    the anti-copy rule`` (never ``board=14x12``)."""
    _, ngettext = _words(locale)
    rules = engine.game_class(name)
    board: list[str] = []
    rest: list[str] = []
    for key, value in sorted((options or {}).items()):
        value = str(value)
        known = _OPTION_WORDS.get((name, key), {}).get(value)
        if name == "nelaxtam" and key == "size":
            if value.startswith("8") or value in ("11", "18"):
                board.append(_("on an %(size)s board", size=f"{value}×{value}"))
            else:
                board.append(_("on a %(size)s board", size=f"{value}×{value}"))
        elif name == "nelaxtam" and key == "sea":
            count = int(value) if value.isdigit() else 2
            rest.append(
                ngettext(
                    "%(num)s troop arriving by sea",
                    "%(num)s troops arriving by sea",
                    count,
                    num=value,
                )
            )
        elif known is not None:
            (board if known.startswith("on ") else rest).append(_(known))
        else:
            rest.append(f"{key.replace('_', ' ')} {value}")
    text = " ".join([rules.title, *board])
    if len(rules.player_counts) > 1:
        text = ngettext(
            "%(game)s for %(num)s players", "%(game)s for %(num)s players", seats, game=text
        )
    return ", ".join([text, *rest])


def players_line(league: League, locale: str = i18n.DEFAULT) -> str:
    """How many take part so far and how many sit at each game."""
    _, ngettext = _words(locale)
    joined = sum(e.status == "active" for e in league.entries)
    invited = sum(e.status == "invited" for e in league.entries)
    parts = [ngettext("%(num)s accepted", "%(num)s accepted", joined)]
    if invited:
        parts.append(ngettext("%(num)s invited", "%(num)s invited", invited))
    if league.format == "tables":
        each = _("3 or 4 at each table")
    else:
        each = ngettext("%(num)s in each game", "%(num)s in each game", league.seats)
    return ngettext(
        "%(num)s so far (%(parts)s); %(each)s",
        "%(num)s so far (%(parts)s); %(each)s",
        joined + invited,
        parts=", ".join(parts),
        each=each,
    )


def _points(value: float, locale: str) -> str:
    _, ngettext = _words(locale)
    text = "½" if value == 0.5 else _number(value, locale)
    if value == 1:
        return _("%(points)s point", points=text)
    return ngettext("%(points)s points", "%(points)s points", _count(value), points=text)


def scoring_line(league: League, locale: str = i18n.DEFAULT) -> str:
    """What a result is worth in this league's standings."""
    _, _ngettext = _words(locale)
    scoring = league.scoring
    if league.format == "knockout":
        rule = {
            "replay": _("a drawn game is replayed"),
            "higher_seed": _("a drawn game goes to the higher seed"),
            "second_seat": _("a drawn game goes to the second seat"),
        }[league.settings.get("draw_rule", "replay")]
        return _("knockout: the winner of each game goes on, the loser is out; %(rule)s", rule=rule)
    if league.format == "tables":
        return _(
            "1 point for each player you finish ahead of at your table and ½ for each you tie "
            "with; a round you sit out scores %(points)s",
            points=_points(scoring.get("bye", 0.0), locale),
        )
    return _(
        "a win %(win)s, a draw %(draw)s, a loss %(loss)s, a bye %(bye)s, a loss by forfeit "
        "%(forfeit)s",
        win=_points(scoring["win"], locale),
        draw=_points(scoring["draw"], locale),
        loss=_points(scoring["loss"], locale),
        bye=_points(scoring["bye"], locale),
        forfeit=_points(scoring["forfeit_loss"], locale),
    )


def forfeit_line(league: League, locale: str = i18n.DEFAULT) -> str:
    """What loses a game without playing it out, and what a withdrawal does."""
    _, ngettext = _words(locale)
    control = league.time_control
    try:
        sealed = engine.new_game(league.game, league.options, league.seats).initial_state()
        simultaneous = bool(sealed.simultaneous)
    except engine.EngineError:
        simultaneous = False
    if simultaneous:
        after = control.get("forfeit_after") or 0
        if after == 1:
            rule = _(
                "missing the deadline of turn forfeits the game (default orders are played for "
                "each miss)"
            )
        elif after:
            rule = ngettext(
                "missing the deadline of %(num)s turns in a row forfeits the game (default "
                "orders are played for each miss)",
                "missing the deadline of %(num)s turns in a row forfeits the game (default "
                "orders are played for each miss)",
                after,
            )
        else:
            rule = _("a missed deadline plays default orders for you; no game is lost by forfeit")
    elif control.get("bank"):
        rule = _("a player whose time bank runs out loses the game on time, a forfeit")
    else:
        rule = _("a move not made by its deadline loses the game on time, a forfeit")
    withdrawal = league.settings.get("withdrawal", "forfeit")
    if withdrawal == "expunge":
        then = _("a player who withdraws leaves the standings with all their games")
    else:
        then = _("a player who withdraws loses their remaining games by forfeit")
    return _("%(rule)s; %(withdrawal)s", rule=rule, withdrawal=then)


def reliability_line(league: League, locale: str = i18n.DEFAULT) -> str:
    """What the league asks of a player's last twelve months (``service.reliability``), or
    "" when it asks nothing."""
    _, ngettext = _words(locale)
    least = league.settings.get("min_reliability")
    most = league.settings.get("max_forfeits")
    parts = []
    if least is not None:
        parts.append(_("at least %(min)s%% of moves made on time", min=_number(least, locale)))
    if most is not None:
        parts.append(
            ngettext(
                "at most %(num)s game lost by forfeit",
                "at most %(num)s games lost by forfeit",
                most,
            )
        )
    if not parts:
        return ""
    terms = (
        parts[0]
        if len(parts) == 1
        else _("%(first)s and %(second)s", first=parts[0], second=parts[1])
    )
    return _("players joining need, over the last twelve months, %(terms)s", terms=terms)


def _players(league: League) -> list[Player]:
    return [e.player for e in league.entries if e.status in ("active", "withdrawn")]


def reply_address(session: Session, league: League, player: Player) -> str:
    """The signed address a player answers an invitation to ``league`` at."""
    settings = notify.settings_of(session)
    return make_league_address(settings.secret(), settings.mail_domain, league.id, player.id)


def invitation(
    session: Session,
    league: League,
    entry: Entry,
    inviter: Player | None,
    expires: datetime | None = None,
) -> None:
    locale = i18n.locale_for(entry.player)
    notify.queue_mail(
        session,
        kind="league_invitation",
        to=entry.player,
        game=None,
        context={
            "league": league_context(session, league, locale),
            "inviter": inviter.name if inviter else i18n.gettext(locale, DIRECTOR),
            "expires": expires,
        },
        reply_to=reply_address(session, league, entry.player),
    )


def expired(session: Session, league: League, entry: Entry, expired_at: datetime) -> None:
    """Tell ``entry``'s player their unanswered invitation lapsed and the seat is free
    (issue 25 point 6); a reply to the invitation after this is refused."""
    locale = i18n.locale_for(entry.player)
    zone = entry.player.time_zone
    when = i18n.format_datetime(expired_at, locale, zone, "yyyy-MM-dd HH:mm") + f" ({zone})"
    notify.queue_mail(
        session,
        kind="league_message",
        to=entry.player,
        game=None,
        context={
            "league": league_context(session, league, locale),
            "sender": i18n.gettext(locale, DIRECTOR),
            "subject_line": i18n.gettext(locale, N_("your invitation expired")),
            "message": i18n.gettext(
                locale,
                N_(
                    "Your invitation to the league %(league)s expired on %(when)s without an "
                    "answer; your seat is free again. To play, ask the league's director to "
                    "invite you again."
                ),
                league=" ".join(league.name.split()),
                when=when,
            ),
        },
        key=f"league-{league.id}-expired-{entry.id}-{entry.joined_at.isoformat()}",
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
        context={
            "league": league_context(session, league, i18n.locale_for(player)),
            "accepted": accepted,
        },
        in_reply_to=in_reply_to,
        reply_to=reply_address(session, league, player),
    )


def standings_table(document: dict[str, Any], locale: str = i18n.DEFAULT) -> dict[str, Any]:
    """Rows for the mail: a fixed-width text line and the cells of an HTML row each, the
    headers and legend in ``locale``."""
    _, _ngettext = _words(locale)
    names = document["tiebreaks"]
    shorts = [_(TIEBREAK_LABELS[n][0]) for n in names]
    rows = []
    for row in document["rows"]:
        name = " ".join(row["player"]["name"].split())
        if row.get("withdrawn"):
            name += _(" (w)")
        short = name if len(name) <= NAME_WIDTH else name[: NAME_WIDTH - 1] + "…"
        rating = row.get("rating")
        cells = [
            str(row["rank"]),
            name,
            _number(row["points"], locale),
            *(_number(row["tiebreaks"][n], locale) for n in names),
            f"{row['wins']}/{row['draws']}/{row['losses']}",
            _number(rating["rating"], locale) if rating else "",
        ]
        values = "".join(f" {cell:>6}" for cell in cells[2:])
        rows.append({"cells": cells, "line": f"{cells[0]:>3} {short:<{NAME_WIDTH}}{values}"})
    columns = ["#", _("Player"), _("Pts"), *shorts, _("W/D/L"), _("Rating")]
    # a space before each column, however long its name in the reader's language
    header = f"{'#':>3} {columns[1]:<{NAME_WIDTH}}" + "".join(f" {c:>6}" for c in columns[2:])
    legend = ", ".join(f"{_(TIEBREAK_LABELS[n][0])} = {_(TIEBREAK_LABELS[n][1])}" for n in names)
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
    contexts: dict[str, dict[str, Any]] = {}  # one per language the readers read
    which = "final" if final else f"round{round_no}"
    for player in _players(league):
        locale = i18n.locale_for(player)
        if locale not in contexts:
            contexts[locale] = {
                "league": league_context(session, league, locale),
                "round": round_no,
                "final": final,
                "standings": standings_table(standings_json, locale),
                "next_round_at": next_round_at,
            }
        notify.queue_mail(
            session,
            kind="league_standings",
            to=player,
            game=None,
            context=contexts[locale],
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
                "league": league_context(session, league, i18n.locale_for(player)),
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
        locale = i18n.locale_for(seat.player)
        notify.queue_mail(
            session,
            kind="league_result",
            to=seat.player,
            game=game,
            context={
                "league": league_context(session, league, locale) if league else None,
                "actor": i18n.gettext(locale, DIRECTOR) if actor == DIRECTOR else actor,
                "action": action,  # in English: the template words it in the reader's language
                "result": i18n.gettext(locale, result_text),
                "reason": reason,
            },
        )
