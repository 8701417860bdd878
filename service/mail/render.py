"""Outbound mail: one Jinja2 template set per message kind, rendered to subject, text and HTML.

Templates live in ``email_templates/<kind>/`` (``subject.txt``, ``text.txt``, ``html.html``) at
the repository root (a wheel has them in ``service/mail/email_templates/``, see setup.py); the
board pictures are the shared partials ``_board.txt`` and ``_board.html``, which only call
:func:`board_text` and :func:`board_html`: a board is drawn in Python, once per mail (issue
23). The public web page gets them through :func:`render_board_text` and
:func:`render_board_html`. HTML is
autoescaped, plain text is not; every variable a template uses must be in the context
(``StrictUndefined``).

Everything a player sees of a game comes from ``state.view(seat).to_json()`` (the ``view``
below); the rest of the context is plain values. Player-supplied strings (names, what a player
typed) go in as they are: the templates escape them for HTML and keep them on one line where a
line break could forge our text.

Context of every kind (``BASE``):

=================  ==========================================================================
``player_name``    the recipient's display name (player-supplied)
``timezone``       the recipient's IANA time zone name; every time is shown in it
``preferences_url`` where the recipient changes mail preferences
``unsubscribe_url`` where the recipient stops all mail (also for ``List-Unsubscribe``)
=================  ==========================================================================

Context of every game mail (``GAME``): ``game_id`` (int), ``game_url`` (the public
``/games/<id>`` page, absolute), ``view`` (``View.to_json()`` for the recipient's seat),
``players`` (display names by seat, player-supplied; ``None`` for a seat still open).
``service.notify`` adds ``rules_url`` (the game's ``/rules/<game>`` page, or ``/rules`` outside
a game), which the footer links and the ``help`` and ``error_reply`` mails use when given.

=================  ==========================================================================
kind               context beyond BASE
=================  ==========================================================================
invitation         GAME (``view`` of the starting position), ``inviter`` (display name),
                   ``expires`` (aware datetime or None)
game_started       GAME, ``deadline`` (aware datetime or None), ``commitment`` (SHA-256 hex
                   of the dice seed, or None when the game has no dice)
your_turn          GAME, ``turn`` (int), ``deadline``
orders_received    GAME, ``turn``, ``orders`` (the orders as read, canonical text),
                   ``receipt`` (hex hash of the sealed orders), ``deadline``
turn_resolved      GAME, ``turn`` (the turn just resolved), ``events`` (``Event.to_json()``
                   list), ``deadline`` (of the next turn), ``receipts`` (a sealed turn's
                   orders, salts and receipts: ``service.receipts.revealed``); to the
                   mover of an alternating game also ``move`` and ``conditional`` (bool):
                   "You played a1-a3", never "Turn 4 resolved"
opponent_moved     GAME, ``mover`` (seat), ``move`` (text), ``events``, ``deadline``
reminder           GAME, ``turn``, ``deadline``, ``hours_left`` (float: the real time left),
                   ``warning`` (what a miss costs: the forfeit count of a sealed game, the
                   time bank of an alternating one; "" for none)
draw_news          GAME, ``actor`` (seat), ``news`` (``offered a draw``, ``declined the draw
                   offer``, ``withdrew their draw offer``...): told at once to the others
takeback_news      GAME, ``actor`` (seat), ``news`` (``offered to take back their last move``,
                   ``declined the takeback``, ``took back their last move...``), ``move``
                   (the move taken back, or ""): issue 25; told at once
move_receipt       GAME, ``turn`` (the turn played), ``move`` (text): the mover's one-line
                   copy of their own move (``Player.own_copy`` = ``short``)
default_orders     GAME, ``turn`` (the missed turn), ``orders`` (the default orders applied
                   to the recipient), ``events``, ``deadline`` (of the next turn), ``receipts``
game_over          GAME, ``record`` (compact game record text), ``dice_seed`` (hex, or None
                   when the game had no dice), ``commitment`` (or None), ``receipts`` (of a
                   sealed turn that ended the game; no seats for a resignation or a timeout)
error_reply        ``received`` (what was read), ``error`` (the engine's message), and GAME
                   whose values may all be None when the mail belonged to no game
help               GAME, whose values may all be None outside a game
reply_receipt      GAME, ``turn``, ``deadline``, ``headline`` (what was done, in a few
                   words: ``Draw offer declined``): the answer to a reply that played no
                   move, or whose move brought its author no mail of its own
confirm_resign     GAME, ``said`` (what the player wrote, quoted): a reply that spoke of
                   resigning with doubt; nothing was done, and it asks for ``resign`` alone
digest             ``date`` (aware datetime), ``games``: a list of GAME mappings each with
                   ``deadline``, ``events`` and ``reply_to`` (the reader's reply address of
                   that game) too
vacation           GAME, ``away`` (display name of the player on leave), ``until`` (aware
                   datetime), ``deadline`` (of the current turn, or None)
league_*           GAME (all None but in ``league_result``) and ``league`` (a mapping: ``id``,
                   ``name``, ``title``, ``format``, ``time_control``, ``starts_at``, ``url``,
                   ``api_url``; see ``service/leagues/mail.py``). ``league_invitation``:
                   ``inviter``; ``league_answer`` (the confirmation of an answer to an
                   invitation sent by mail): ``accepted`` (bool);
                   ``league_standings``: ``round``, ``final``, ``standings``
                   (``columns``, ``header``, ``rows`` of ``cells`` and ``line``, ``legend``);
                   ``league_message``: ``sender``, ``subject_line``, ``message``;
                   ``league_result``: ``actor``, ``action``, ``result``, ``reason`` (its
                   ``league`` may be None)
sign_in            ``sign_in_url`` (the signed, expiring link of
                   ``service/console/sign_in.py``), ``expires`` (aware datetime), ``minutes``
                   (how long a link works), ``ask_url`` (the page that mails a new one)
=================  ==========================================================================
"""

from __future__ import annotations

import copy
import functools
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from markupsafe import Markup, escape

from engine.errors import Reason
from service import i18n, rules
from service.i18n import N_
from service.mail.commands import local_word
from service.mail.extract import REPLY_MARKER
from service.mail.words import position_in_words, seat_name, titler
from service.wording import options_in_words

Players = Sequence[str | None] | None
"""Display names by seat (``None`` for an open seat), or ``None`` outside a game."""

_INSTALLED = Path(__file__).with_name("email_templates")  # where setup.py puts them in a wheel
TEMPLATE_DIR = (
    _INSTALLED if _INSTALLED.is_dir() else Path(__file__).resolve().parents[2] / "email_templates"
)

BASE = ("player_name", "timezone", "preferences_url", "unsubscribe_url")
GAME = ("game_id", "game_url", "view", "players")
KINDS: Mapping[str, tuple[str, ...]] = {
    "invitation": (*GAME, "inviter", "expires"),
    "game_started": (*GAME, "deadline", "commitment"),
    "your_turn": (*GAME, "turn", "deadline"),
    "orders_received": (*GAME, "turn", "orders", "receipt", "deadline"),
    "turn_resolved": (*GAME, "turn", "events", "deadline", "receipts"),
    "opponent_moved": (*GAME, "mover", "move", "events", "deadline"),
    "reminder": (*GAME, "turn", "deadline", "hours_left", "warning"),
    "draw_news": (*GAME, "actor", "news"),
    "takeback_news": (*GAME, "actor", "news", "move"),
    "move_receipt": (*GAME, "turn", "move"),
    "default_orders": (*GAME, "turn", "orders", "events", "deadline", "receipts"),
    "game_over": (*GAME, "record", "dice_seed", "commitment", "receipts"),
    "error_reply": (*GAME, "received", "error"),
    "help": GAME,
    "reply_receipt": (*GAME, "turn", "deadline", "headline"),
    "confirm_resign": (*GAME, "said"),
    "confirm_reply": (*GAME, "turn", "league", "held", "why", "confirm_url", "replaced"),
    "digest": ("date", "games"),
    "vacation": (*GAME, "away", "until", "deadline"),
    "league_invitation": (*GAME, "league", "inviter", "expires"),
    "league_answer": (*GAME, "league", "accepted"),
    "league_standings": (*GAME, "league", "round", "final", "standings"),
    "league_message": (*GAME, "league", "sender", "subject_line", "message"),
    "league_result": (*GAME, "league", "actor", "action", "result", "reason"),
    "sign_in": ("sign_in_url", "expires", "minutes", "ask_url"),
}
"""The context keys each kind needs beyond ``BASE`` (see the module docstring)."""

OPERATOR_KINDS: Mapping[str, tuple[str, ...]] = {"doctor": ("reply_to",)}
"""Mail to whoever runs the service, who need not be a player: no ``BASE``, no settings
footer. ``doctor``: ``pbem doctor --round-trip``'s probe, ``reply_to`` its reply address."""

DIGEST_BOARDS = 3
"""A digest draws the boards of this many games waiting for the reader: Gmail clips HTML
mails over 102 kB, and a large board takes about 30 kB."""
TEXT_WIDTH = 80
PROSE_WIDTH = 72
LAST_MOVE_COLOUR = "#ffd400"
"""The HTML board's ring round the squares the last move changed: a ring, not a fill, so the
square's own colour (its side, a destroyed square) shows inside it (issue 21, point 2). A
dark inner line keeps the ring visible on light squares. It is an inset shadow, drawn under
the piece and inside the square's border, where Elasta's battle line runs."""
LAST_MOVE_EDGE = "#1f1f1f"
LAST_MOVE_MARK = 'data-last-move="true"'
"""The attribute :func:`board_html` puts on each square the last move changed (tests count it)."""


@dataclass(frozen=True)
class RenderedEmail:
    """One mail, ready for a multipart/alternative message."""

    subject: str
    text: str
    html: str


def render_email(kind: str, context: Mapping[str, Any]) -> RenderedEmail:
    """Render the subject, plain text and HTML of one message kind."""
    if kind in OPERATOR_KINDS:
        needed: tuple[str, ...] = OPERATOR_KINDS[kind]
    elif kind in KINDS:
        needed = (*BASE, *KINDS[kind])
    else:
        raise ValueError(f"no mail kind {kind!r}; known: {', '.join(KINDS)}")
    missing = [key for key in needed if key not in context]
    if missing:
        raise KeyError(f"mail {kind!r} lacks context {', '.join(missing)}")
    with i18n.in_locale(_locale(context)):
        subject = one_line(_render(f"{kind}/subject.txt", context))
        values = {**context, "subject": subject}
        return RenderedEmail(
            subject=subject,
            text=_tidy_text(_render(f"{kind}/text.txt", values)),
            html=_render(f"{kind}/html.html", values),
        )


def render_subject(kind: str, context: Mapping[str, Any]) -> str:
    """The subject alone of one message kind (what a mail that carries several says of each)."""
    with i18n.in_locale(_locale(context)):
        return one_line(_render(f"{kind}/subject.txt", context))


def _locale(context: Mapping[str, Any]) -> str:
    """The reader's locale (``notify`` puts it in every context), else the one in force: the
    Python helpers below (dates, lists, boards) write in :func:`i18n.current`."""
    given = context.get("locale")
    return given if isinstance(given, str) and given else i18n.current()


def _(message: str, **values: Any) -> str:
    """``message`` in the locale being rendered (:func:`i18n.current`)."""
    return i18n.gettext(i18n.current(), message, **values)


def status_in(locale: str, state: Any, seat: int | None, english: str) -> str:
    """The status line of ``state`` as ``seat`` sees it, in ``locale``: the engine's
    ``status_reason`` rendered with the catalogs, where it says what ``english`` (the view's
    status) says; a game whose words are its own stays as it wrote them."""
    reason = state.status_reason(seat)
    if locale == i18n.DEFAULT or reason.render() != english:
        return english
    return str(_seats_in(reason, locale).render(*i18n.translators(locale)))


def game_line_in(locale: str, state: Any, result: Mapping[str, Any] | None) -> str:
    """A game's line in a list of games, in ``locale``: its status line while it runs
    (``result`` None), else "Game over: 1-0 (White crossed (EPA-9))", the engine's reason
    in the reader's words where the engine ended it."""
    if result is None:
        return status_in(locale, state, None, state.status())
    return game_over_in(locale, result, state.outcome.why if state.outcome else None)


def game_over_in(locale: str, result: Mapping[str, Any], why: Any = None) -> str:
    """ "Game over: 0-1 (White resigned)" in ``locale``, of a game's stored ``result``."""
    return i18n.gettext(
        locale,
        "Game over: %(result)s (%(reason)s)",
        result=result.get("result", "?"),
        reason=result_reason_in(locale, result, why),
    )


def result_reason_in(locale: str, result: Mapping[str, Any], why: Any = None) -> str:
    """Why a game ended (a stored ``result``'s ``reason``) in ``locale``: by ``why``, else by
    the reason the result keeps (``games.aggregate.stored_result``), else as stored."""
    english = str(result.get("reason", ""))
    if why is None and isinstance(result.get("why"), Mapping):
        try:
            why = Reason.from_json(result["why"])
        except (KeyError, TypeError, ValueError):  # a row written by hand: its English
            why = None
    return told_in(locale, why, english)


def info_in(locale: str, state: Any, seat: int | None, english: Sequence[str]) -> list[str]:
    """The lines under the board of ``state`` as ``seat`` sees them, in ``locale``: the
    engine's ``info_why`` rendered with the catalogs where they say what ``english`` (the
    view's ``info``) says, else ``english``."""
    lines = [str(line) for line in english]
    if locale == i18n.DEFAULT:
        return lines
    reasons = state.info_why(seat)
    if [reason.render() for reason in reasons] != lines:
        return lines
    translators = i18n.translators(locale)
    return [str(_seats_in(reason, locale).render(*translators)) for reason in reasons]


def ascii_in(locale: str, state: Any, seat: int | None, english: str) -> str:
    """The text board ``english`` (``View.ascii`` of ``state`` for ``seat``, perhaps turned
    and marked for its reader) with its words in ``locale``: each of the engine's
    ``legend_why`` (legend lines, captions) rendered with the catalogs where the board shows
    its English as whole lines; the board's marks and letters stay as they are."""
    if locale == i18n.DEFAULT:
        return english
    translators, text = i18n.translators(locale), english
    for reason in state.legend_why(seat):
        said = str(_seats_in(reason, locale).render(*translators))
        lines = re.compile(rf"^{re.escape(reason.render())}$", re.MULTILINE)
        text = lines.sub(said.replace("\\", "\\\\"), text)
    return text


def told_in(locale: str, why: Any, english: str) -> str:
    """An engine text (an event's, an outcome's reason) in ``locale``: its ``Reason``
    rendered with the catalogs where it says what ``english`` says, else ``english``."""
    if why is None or locale == i18n.DEFAULT or why.render() != english:
        return english
    return str(_seats_in(why, locale).render(*i18n.translators(locale)))


def _seats_in(why: Any, locale: str) -> Any:
    """``why`` with the seat names among its parameters (the engine writes them as the rule
    books do: "Light", "North") in ``locale``, as the board and the mail's frame name them."""
    if not isinstance(why, Reason):
        return why
    params = {
        key: seat_name(value, locale) if isinstance(value, str) else _seats_in(value, locale)
        for key, value in why.params.items()
    }
    said = copy.copy(why)  # a subclass (Elasta's padded table labels) stays itself
    object.__setattr__(said, "params", params)
    return said


def events_in(locale: str, events: Sequence[Any]) -> list[dict[str, Any]]:
    """``Event.to_json()`` of each event, its text in ``locale`` (:func:`told_in`)."""
    return [event.to_json() | {"text": told_in(locale, event.why, event.text)} for event in events]


def render_board_html(view_json: Mapping[str, Any]) -> str:
    """The HTML board (a table with inline styles) of a ``View.to_json()``: as wide as its
    column up to its desktop size, so that it fits any screen from 320 px (``board_metrics``);
    header cells for files and ranks, every square named (``cell_name``), the last move's
    squares ringed (``LAST_MOVE_MARK``) and Elasta's battle line drawn (``battle_line``)."""
    return str(board_html(view_json))


def render_board_text(view_json: Mapping[str, Any]) -> str:
    """The plain-text board with its info lines and status, as the mails show it: the
    position in words (``service/mail/words.py``), then the grid unless the view's
    ``board_text`` is ``words``."""
    return _tidy_text(board_text(view_json))


def _render(name: str, context: Mapping[str, Any]) -> str:
    return ENVIRONMENT.get_template(name).render(context)


def _tidy_text(text: str) -> str:
    """No trailing blanks, at most one empty line in a row (optional parts leave gaps)."""
    lines = [line.rstrip() for line in text.strip("\n").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)) + "\n"


# --- filters ---------------------------------------------------------------------------------


def one_line(value: object) -> str:
    """A player-supplied string on one line: a line break could forge our own text."""
    return " ".join(str(value).split())


def wrap(value: object, width: int = PROSE_WIDTH, indent: str = "", hang: str = "") -> str:
    """Fill each line of ``value`` that is longer than ``width``; shorter lines stay as written.

    ``indent`` starts the first line, ``hang`` the lines a long line is broken into (after
    ``indent``'s width of spaces when not given).
    """
    subsequent = hang or " " * len(indent)
    out = []
    for line in str(value).split("\n"):
        if len(indent + line) <= width:
            out.append(indent + line)
            continue
        out += textwrap.wrap(
            line,
            width,
            initial_indent=indent,
            subsequent_indent=subsequent,
            break_on_hyphens=False,
        )
    return "\n".join(out)


def wrap_items(items: Sequence[str], lead: str, width: int = PROSE_WIDTH, hang: str = "  ") -> str:
    """``lead`` then the items joined by commas, breaking lines between items only."""
    texts = [item + "," for item in items[:-1]] + list(items[-1:])
    lines, line, fresh = [], lead.rstrip(), True
    for text in texts:
        if fresh or len(line) + 1 + len(text) <= width:
            line, fresh = f"{line} {text}" if line else text, False
        else:
            lines.append(line)
            line = hang + text
    lines.append(line)
    return "\n".join(wrap(one, width, hang=hang) for one in lines)


def quote(value: object, max_lines: int = 12) -> str:
    """What a player typed, quoted with ``> `` and cut to fit 80 columns and a few lines."""
    lines = str(value).replace("\r\n", "\n").replace("\r", "\n").split("\n")
    shown = [
        line if len(line) <= TEXT_WIDTH - 2 else line[: TEXT_WIDTH - 5] + "..."
        for line in lines[:max_lines]
    ]
    if len(lines) > max_lines:
        shown.append(f"[... {len(lines) - max_lines} more lines not shown]")
    return "\n".join(f"> {line}".rstrip() for line in shown)


def when(moment: datetime, zone: str) -> str:
    """``Sat 1 Mar 2025, 18:00 CET (Europe/Paris)``: an aware datetime in the reader's zone."""
    if moment.tzinfo is None:
        raise ValueError(f"a mail shows aware datetimes only, got {moment.isoformat()}")
    return i18n.format_moment(moment, i18n.current(), zone)


def duration(hours: float) -> str:
    """About how long, in the largest unit that reads naturally."""
    catalog = i18n.translations(i18n.current())
    if hours < 1:
        minutes = max(1, round(hours * 60))
        return catalog.ungettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": minutes}
    if hours < 48:
        whole = round(hours)
        return catalog.ungettext("%(num)s hour", "%(num)s hours", whole) % {"num": whole}
    days = round(hours / 24)
    return catalog.ungettext("%(num)s day", "%(num)s days", days) % {"num": days}


def ordinal(place: int) -> str:
    if i18n.current() != i18n.DEFAULT:
        return _("%(place)s.", place=place)
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def seat_label(view: Mapping[str, Any], players: Players, seat: int) -> str:
    """``Ann (White)``, or the seat name alone while the seat is open; the seat's name in the
    locale being rendered."""
    seat_word = seat_name(view["seat_names"][seat])
    name = players[seat] if players and seat < len(players) else None
    return f"{one_line(name)} ({seat_word})" if name else seat_word


def opponents(view: Mapping[str, Any], players: Players) -> list[str]:
    """Every seat but the viewer's, labelled (every seat for a spectator)."""
    seats = range(len(view["seat_names"]))
    return [seat_label(view, players, seat) for seat in seats if seat != view["viewer"]]


def awaiting_orders(view: Mapping[str, Any], players: Players) -> list[str]:
    """The seats whose sealed orders are not in yet, labelled."""
    seats = [seat for seat in view["to_act"] if seat not in view["submitted"]]
    return [seat_label(view, players, seat) for seat in seats]


def and_list(items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(items) < 2:
        return "".join(items)
    return _("%(items)s and %(last)s", items=", ".join(items[:-1]), last=items[-1])


def awaits_viewer(game: Mapping[str, Any]) -> bool:
    """Whether a digest entry's game waits for the recipient's move or orders."""
    view = game["view"]
    return view["viewer"] in view["to_act"] and view["viewer"] not in view["submitted"]


def standings(view: Mapping[str, Any], players: Players) -> list[tuple[str, str]]:
    """``(place, seat label)`` from first place down, for a finished game."""
    places = view["outcome"]["places"]
    order = sorted(range(len(places)), key=lambda seat: places[seat])
    return [(ordinal(places[seat]), seat_label(view, players, seat)) for seat in order]


def verdict(view: Mapping[str, Any]) -> str:
    """The result in the recipient's words."""
    places, viewer = view["outcome"]["places"], view["viewer"]
    if all(place == 1 for place in places):
        return _("The game is drawn.")
    if viewer is None:
        return ""
    if places[viewer] == 1:
        return (
            _("You won. Congratulations!") if places.count(1) == 1 else _("You share first place.")
        )
    if len(places) == 2:
        return _("You lost.")
    return _("You finished %(place)s.", place=ordinal(places[viewer]))


DRAW_NEWS = (
    N_("offered a draw"),
    N_("accepted a draw"),
    N_("declined the draw offer"),
    N_("withdrew their draw offer"),
)
"""What ``draw_news`` says a player did (``games.aggregate``), translated in the mail."""


@pass_context
def _local_command(context: Any, english: str) -> str:
    """How the reader's language writes an English command (both are understood)."""
    return local_word(english, i18n._locale_of(context)) or english


def footer_labels() -> tuple[str, str]:
    """ "Mail settings:" and "Unsubscribe:" padded to one width, so their links line up."""
    labels = (_("Mail settings:"), _("Unsubscribe:"))
    width = max(len(label) for label in labels)
    return labels[0].ljust(width), labels[1].ljust(width)


def cited_rules(
    error: str, view: Mapping[str, Any] | None, rules_url: str | None
) -> list[tuple[str, str]]:
    """The rules an error of the reader's game cites, each with its link on the game's rules
    page ``rules_url`` (``.../rules/<game>#EPA-5``); none outside a game."""
    if not view or not rules_url:
        return []
    return [(rule, f"{rules_url}#{rule}") for rule, _ in rules.rule_links(view["game"], error)]


def link_rules(error: str, links: Sequence[tuple[str, str]]) -> Markup:
    """An error for HTML: escaped, each cited rule id a link to its rule."""
    return rules.linked(error, links, CSS["link"])


def notations(view: Mapping[str, Any] | None, locale: str = i18n.DEFAULT) -> list[dict[str, str]]:
    """How moves are written: in the game of ``view``, or in every game outside a game; in
    ``locale`` where the game's rules are written in it."""
    games = [view["game"]] if view else rules.names()
    return [rules.notation(name, locale) for name in games if name in rules.names()]


@pass_context
def _notations(context: Any, view: Mapping[str, Any] | None) -> list[dict[str, str]]:
    return notations(view, i18n._locale_of(context))


COMMANDS = (
    ("<move or orders>", N_("play your move, or send (or replace) your sealed orders")),
    ("preview <move>", N_("see the board after a move without playing it")),
    (
        "if <X> then <Y>",
        N_(
            "answer the opponent's move X with Y at once (one line per branch; go on with "
            "'if ... then ...' on the same line for the next move; Elemento: 'if roll G+R then "
            "E@a4'); seen by you alone"
        ),
    ),
    ("resign", N_("give up the game")),
    ("draw", N_("offer a draw, or accept the one offered to you")),
    ("decline", N_("turn down a draw offer or an invitation")),
    ("draw off", N_("take back your own draw offer")),
    (
        "takeback",
        N_(
            "offer to take back your last move, until your opponent replies "
            "(Epaminondas, Anti-Grid)"
        ),
    ),
    ("takeback accept|decline", N_("answer your opponent's offer to take back their last move")),
    (
        "delay <minutes>",
        N_(
            "hold the moves you mail that many minutes, so that 'undo' can cancel them "
            "('delay off')"
        ),
    ),
    ("undo", N_("cancel your move held by the send delay")),
    ("board  or  status", N_("get the current board and whose turn it is")),
    ("wait", N_("keep a sealed turn open until its deadline even when all orders are in")),
    ("vacation on|off", N_("stop your clocks while you are away, and start them again")),
    (
        "note <text>",
        N_(
            "keep a private note on this game, seen by you alone, under the board of your "
            "mails (it replaces the one before; 'note -' clears it)"
        ),
    ),
    ("help", N_("get this list")),
)
"""The commands a reply may carry, as help mails list them (in English; ``commands`` gives
them in the reader's language)."""
_LOCAL_COMMANDS: Mapping[str, tuple[str, ...]] = {
    "preview <move>": ("preview",),
    "resign": ("resign",),
    "draw": ("draw",),
    "decline": ("decline",),
    "draw off": ("draw off",),
    "takeback": ("takeback",),
    "takeback accept|decline": ("takeback accept", "takeback decline"),
    "undo": ("undo",),
    "board  or  status": ("board",),
    "wait": ("wait",),
    "vacation on|off": ("vacation on", "vacation off"),
    "note <text>": ("note",),
    "help": ("help",),
}
"""The English commands of ``COMMANDS`` that other languages write in words of their own
(``phrases.COMMAND_PHRASES``); a move and ``if ... then ...`` are written alike in all."""


_MOVE_OR_ORDERS, _MOVE, _TEXT = N_("<move or orders>"), N_("<move>"), N_("<text>")


def local_commands(locale: str) -> list[tuple[str, str]]:
    """``COMMANDS`` for a reader in ``locale``: the meaning translated, and the command in
    the reader's words before the English ones, both understood ("aufgeben / resign")."""
    translate = i18n.translations(locale).ugettext
    shown: list[tuple[str, str]] = []
    for command, meaning in COMMANDS:
        words = [local_word(english, locale) for english in _LOCAL_COMMANDS.get(command, ())]
        if command == "<move or orders>":
            command = translate(_MOVE_OR_ORDERS)
        elif command == "preview <move>" and words[0]:
            command = f"{words[0]} {translate(_MOVE)} / {command}"
        elif command == "note <text>" and words[0]:
            command = f"{words[0]} {translate(_TEXT)} / {command}"
        elif all(words) and words:
            command = f"{_joined(words)} / {command.replace('  or  ', ' / ')}"
        shown.append((command, translate(meaning)))
    return shown


def _joined(words: Sequence[str]) -> str:
    """``urlaub an|aus`` for ``urlaub an`` and ``urlaub aus``: the shared first word once."""
    firsts = {word.split()[0] for word in words}
    if len(words) > 1 and len(firsts) == 1 and all(" " in word for word in words):
        return f"{words[0]}|" + "|".join(word.split(maxsplit=1)[1] for word in words[1:])
    return "|".join(words)


@pass_context
def _commands(context: Any) -> list[tuple[str, str]]:
    return local_commands(i18n._locale_of(context))


# --- board colours ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Shade:
    """How a style word looks: the square's background, and a piece standing there."""

    square: str
    piece: str = ""
    ink: str = ""


BOARD_LINE = 1
"""Cell spacing (px) of the board table: its background shows through as the grid lines."""
WOOD = "#e9d3a6"
LIGHT_PIECE = ("#fdfdfb", "#1f1f1f")
DARK_PIECE = ("#262a30", "#ffffff")
NEUTRAL = Shade("#e4e4e4")

STYLES: Mapping[str, Shade] = {
    # epaminondas: the stone on the square
    "empty": Shade(WOOD),
    "white": Shade(WOOD, *LIGHT_PIECE),
    "black": Shade(WOOD, *DARK_PIECE),
    # elasta: the two sides of the battle line
    "white-side": Shade("#f6efdf"),
    "black-side": Shade("#59606b"),
    # anti-grid: kinds of point
    "red-point": Shade("#f5c9c4"),
    "blue-point": Shade("#c5d9f7"),
    "crossing": Shade("#ddd0ee"),
    "none": Shade("#fafafa"),
    # elemento: quadrant colours
    "green": Shade("#bfe3b4"),
    "yellow": Shade("#f9e7a1"),
    "red": Shade("#f3b8b0"),
    "blue": Shade("#b5d0f2"),
    # nelaxtam: territory
    "o": Shade("#fbf3dc"),
    "x": Shade("#c9d0da"),
    "destroyed": Shade("#4a4a4a"),
}
"""Per style word of the games' ``grid()``; any other word gets ``NEUTRAL``."""

PIECES: Mapping[str, Mapping[str, tuple[str, str]]] = {
    "anti-grid": {"R": ("#c62828", "#ffffff"), "B": ("#1559b3", "#ffffff")},
    "elemento": {
        **{stone: LIGHT_PIECE for stone in "FWEA"},
        **{stone: DARK_PIECE for stone in "fwea"},
    },
    "nelaxtam": {
        **{troop: LIGHT_PIECE for troop in "12345"},
        **{troop: DARK_PIECE for troop in "ABCDE"},
    },
}
"""Piece colours by a cell's text, where the style word says where, not what, stands there."""


PAGE_PADDING = 20
"""The most padding (px) a mail or page puts on each side of the board's column: the cells
are sized so that the board fits a 320 px screen inside it."""
NARROWEST = 320
"""The narrowest screen (px) every board fits without a sideways scroll (issue 21)."""
COORD = 18
"""Width (px) of the rank-number columns."""
PIECE_EMS = 1.6
"""A piece's diameter (and an empty square's height) in ems of the board's font size: the
board's font size scales the squares, so they shrink with the screen."""


def board_metrics(grid: Mapping[str, Any]) -> dict[str, Any]:
    """Sizes that keep a board's squares square and the board within a 600 px mail column on a
    desktop, and within the screen on a phone down to 320 px.

    The table is ``width:100%`` up to ``width`` px with ``table-layout:fixed``: its columns
    share what the screen gives. Pieces and empty squares are ``PIECE_EMS`` wide in the
    board's font size ``min(font px, vw vw)``, which is ``font`` px on a desktop and shrinks
    with the screen so that a piece always fits its square; a mail client that knows no
    ``min()`` keeps ``small`` px, the size that fits 320 px.
    """
    files, lines = len(grid["files"]), max(len(grid["files"]), len(grid["ranks"]), 1)
    square = max(22, min(44, 540 // lines))
    columns = max(files, 1)
    fixed = 2 * PAGE_PADDING + 2 * COORD + (columns + 3) * BOARD_LINE

    def font_at(screen: int) -> float:
        return ((screen - fixed) / columns - 2) / PIECE_EMS

    font = (square - 4) / PIECE_EMS
    small = min(font, font_at(NARROWEST))
    return {
        "square": square,
        "coord": COORD,
        "width": files * square + 2 * COORD + (files + 3) * BOARD_LINE,
        "font": round(font, 1),
        "small": round(small, 1),
        "ems": PIECE_EMS,
        "row": PIECE_EMS + 0.2,
        "font_css": f"font-size:{small:.1f}px;"
        f"font-size:min({font:.1f}px,{small * 100 / NARROWEST:.2f}vw)",
    }


def square_colour(style: str) -> str:
    return STYLES.get(style, NEUTRAL).square


def piece_css(game: str, text: str, style: str) -> str:
    """A round piece with its letter, coloured by the game's piece or else by the style word;
    ``PIECE_EMS`` wide in the font size around it. Its letter tells it apart as well as its
    colour does (a reader who sees no colour, or a dark-mode client that changes them)."""
    shade = STYLES.get(style, NEUTRAL)
    colours = PIECES.get(game, {}).get(text) or (shade.piece and (shade.piece, shade.ink))
    fill, ink = colours or LIGHT_PIECE
    return (
        f"display:inline-block;width:{PIECE_EMS}em;height:{PIECE_EMS}em;"
        f"line-height:{PIECE_EMS}em;border-radius:50%;background:{fill};color:{ink};"
        "border:1px solid #333;font-weight:bold;text-align:center;vertical-align:middle"
    )


def cell_name(
    cell: Mapping[str, Any],
    grid: Mapping[str, Any],
    meanings: Mapping[str, str] | None = None,
    titled: Callable[[Mapping[str, Any]], str] | None = None,
) -> str:
    """What a screen reader says for a square: ``c3, white stone`` (issue 21, point 10).

    The engine's title (``c3: white stone``) when it has one, else the square with the
    legend's meanings of its style and piece; ``, last move`` when the last move changed it.
    ``meanings``: the grid's :func:`legend_meanings`, when the caller names many squares;
    ``titled``: the title in the reader's words (``words.titler``), else the engine's.
    """
    title = titled(cell) if titled is not None else str(cell.get("title") or "")
    square = str(cell["square"])
    if title.startswith(f"{square}: "):
        name = f"{square}, {title[len(square) + 2 :]}"
    elif title:
        name = title if title.startswith(square) else f"{square}, {title}"
    else:
        meanings = legend_meanings(grid) if meanings is None else meanings
        words = [meanings.get(cell.get("style", ""), ""), meanings.get(cell.get("text", ""), "")]
        words = [word for word in words if word] or ([cell["text"]] if cell.get("text") else [])
        name = ", ".join([square, *words] if words else [square, _("empty")])
    if not cell.get("last"):
        return name
    return name + ", " + _("last move")


def legend_meanings(grid: Mapping[str, Any]) -> dict[str, str]:
    """The legend as a mapping, key to meaning: read once per board, not once per square."""
    return {str(key): _(str(meaning)) for key, meaning in grid.get("legend", ())}


SIDES = ("white-side", "black-side")
"""Elasta's style words: the squares on White's and on Black's side of the battle line."""
BATTLE_LINE = "#c0392b"
"""Colour of Elasta's battle line (the sticks) on the HTML board."""


def battle_line(grid: Mapping[str, Any]) -> dict[str, str]:
    """Where Elasta's battle line runs: the square each file's stick borders, and on which
    edge as the board is shown (``top`` or ``bottom``); empty for other games.

    A file's stick stands at its height h: between ranks h and h + 1, with White's side the
    ranks 1..h (ELA-1, and the ASCII board's ``===``). It is drawn on the edge toward the
    higher rank of White's square at rank h, or on the lower edge of rank 1 when h is 0 (on
    White's ground line). A board turned for Black shows rank 1 on top.
    """
    rows = grid.get("rows") or []
    styles = {cell["style"] for row in rows for cell in row}
    if not rows or not styles <= set(SIDES):
        return {}
    ranks = [int(rank) for rank in grid["ranks"]]
    up, down = ("top", "bottom") if ranks[0] > ranks[-1] else ("bottom", "top")
    edges = {}
    for column in range(len(rows[0])):
        cells = sorted(((ranks[r], rows[r][column]) for r in range(len(rows))), key=lambda x: x[0])
        white = [cell for _, cell in cells if cell["style"] == SIDES[0]]
        if white:
            edges[white[-1]["square"]] = up
        else:
            edges[cells[0][1]["square"]] = down
    return edges


@dataclass(frozen=True)
class LegendEntry:
    key: str
    meaning: str
    is_style: bool
    style: str
    """The style word to shade a swatch, or of a square where the piece ``key`` stands."""


def legend(grid: Mapping[str, Any]) -> list[LegendEntry]:
    """The grid's legend; each key names either a style word (a swatch) or a piece's text."""
    style_of_text = {cell["text"]: cell["style"] for row in grid["rows"] for cell in row}
    used = {cell["style"] for row in grid["rows"] for cell in row}
    entries = []
    for key, meaning in grid["legend"]:
        is_style = key in used or (key in STYLES and key not in style_of_text)
        style = key if is_style else style_of_text.get(key, "")
        entries.append(LegendEntry(key, _(meaning), is_style, style))
    return entries


# --- boards drawn in Python ------------------------------------------------------------------
# A board is drawn once per mail (and per page) by the functions below, not cell by cell in
# Jinja: a 16x16 board took about a thousand template calls per mail (issue 23). They give
# the markup the templates gave, byte for byte. Every text they put in HTML goes through
# markupsafe's ``escape``: engine texts, titles and whatever a player named or typed.


def board_html(view: Mapping[str, Any]) -> Markup:
    """The HTML board of a ``View.to_json()`` (see :func:`render_board_html`), its legend,
    last move, offers, warnings and info lines, as ``_board.html`` includes it."""
    grid = view["grid"]
    sticks = battle_line(grid) if grid.get("rows") else {}
    parts = [_board_table(view, grid, sticks) if grid.get("rows") else _board_pre(view)]
    if grid.get("legend"):
        parts.append(_board_legend(view, grid, sticks))
    if view.get("last_move"):
        marked = " " + _("(highlighted)") if view.get("last_squares") else ""
        parts.append(f'<p style="{_CSS_SMALL}">{escape(view["last_move"])}{marked}</p>\n')
    if "offers" in view and (view["offers"] or view["warnings"]):
        for line in [*view["offers"], *view["warnings"]]:
            parts.append(f'<p style="{_CSS_P}"><strong>{escape(line)}</strong></p>\n')
    if view.get("info"):
        info = escape("\n").join(view["info"])
        parts.append(f'<div style="{_CSS_PRE}">{info}</div>\n')
    return Markup("".join(parts))


def board_text(view: Mapping[str, Any]) -> str:
    """The plain-text board (see :func:`render_board_text`) before its blank lines are tidied,
    as ``_board.txt`` includes it: the position in words, the grid unless the view's
    ``board_text`` is ``words``, the info lines, the status, the offers and warnings."""
    lines = [f"{sentence}\n" for sentence in position_in_words(view)]
    if view.get("board_text", "grid") != "words":
        lines.append(f"\n{view['ascii']}\n")
        if view.get("last_move"):
            marked = " " + _("(marked < and ^)") if view.get("last_squares") else ""
            lines.append(f"{wrap(view['last_move'], TEXT_WIDTH)}{marked}\n")
    lines.append("\n")
    lines += [f"{wrap(line, TEXT_WIDTH)}\n" for line in view["info"]]
    lines.append(f"{wrap(view['status'], TEXT_WIDTH)}\n")
    if "offers" in view and (view["offers"] or view["warnings"]):
        lines.append("\n")
        lines += [f"{wrap(line, TEXT_WIDTH)}\n" for line in [*view["offers"], *view["warnings"]]]
    return "".join(lines)


def _board_pre(view: Mapping[str, Any]) -> str:
    """A board without a grid: its ASCII picture."""
    title = escape(view["title"])
    label = escape(_("%(game)s board", game=view["title"]))
    return (
        f'<pre role="img" aria-label="{label}" style="{_CSS_PRE}">{escape(view["ascii"])}'
        f'</pre>\n<p style="{_CSS_SMALL}">{title}: {escape(view["status"])}</p>\n'
    )


def _board_table(
    view: Mapping[str, Any], grid: Mapping[str, Any], sticks: Mapping[str, str]
) -> str:
    """The grid as a table: file letters above and below, rank numbers left and right; the
    squares ``sticks`` names bordered by Elasta's battle line."""
    size = board_metrics(grid)
    title, files, ranks = escape(view["title"]), grid["files"], grid["ranks"]
    described = _(
        "%(game)s board, files %(first)s to %(last)s from left to right, ranks %(top)s to "
        "%(bottom)s from top to bottom",
        game=view["title"],
        first=files[0],
        last=files[-1],
        top=ranks[0],
        bottom=ranks[-1],
    )
    head = "".join(f'<th scope="col" bgcolor="{_COORD_COLOUR}">{escape(f)}</th>' for f in files)
    out = [
        f'<table cellpadding="0" cellspacing="{BOARD_LINE}" border="0" width="{size["width"]}"\n'
        f' aria-label="{escape(described)}"\n'
        f' style="{_CSS_BOARD};max-width:{size["width"]}px">\n'
        f'<caption style="{_CSS_CAPTION}">{title}: {escape(view["status"])}</caption>\n'
        f'<thead>\n<tr align="center"><td bgcolor="{_COORD_COLOUR}" style="width:'
        f'{size["coord"]}px;height:20px"></td>{head}<td bgcolor="{_COORD_COLOUR}" style="width:'
        f'{size["coord"]}px"></td></tr>\n</thead>\n'
        f'<tbody style="{escape(size["font_css"])};color:#1f1f1f">\n'
    ]
    game, meanings = view["game"], legend_meanings(grid)
    titled = titler(view)
    for rank, row in zip(ranks, grid["rows"], strict=False):
        rank_cell = f'<th scope="row" style="{_CSS_COORD}">{escape(rank)}</th>'
        cells = "".join(_board_square(game, grid, cell, sticks, meanings, titled) for cell in row)
        out.append(
            f'<tr align="center" valign="middle" style="height:{size["row"]}em">{rank_cell}\n'
            f"{cells}{rank_cell}</tr>\n"
        )
    out.append(
        f'</tbody>\n<tfoot>\n<tr align="center"><td bgcolor="{_COORD_COLOUR}" style="height:20px">'
        f'</td>{head}<td bgcolor="{_COORD_COLOUR}"></td></tr>\n</tfoot>\n</table>\n'
    )
    return "".join(out)


def _board_square(
    game: str,
    grid: Mapping[str, Any],
    cell: Mapping[str, Any],
    sticks: Mapping[str, str],
    meanings: Mapping[str, str],
    title: Callable[[Mapping[str, Any]], str] | None = None,
) -> str:
    """One square: named for a screen reader, shaded, its piece, its ring and battle line;
    ``title``: the square's title in the reader's words (:func:`words.titler`)."""
    last = bool(cell.get("last"))
    square = cell["square"]
    text = cell.get("text")
    name = escape(cell_name(cell, grid, meanings, title))
    opening = f'<td aria-label="{name}" bgcolor="{_shade(cell["style"])}"'
    if last:
        opening += f" {LAST_MOVE_MARK}"
    if last or square in sticks:
        edge = (
            f"border-{escape(sticks[square])}:4px solid {BATTLE_LINE}" if square in sticks else ""
        )
        ring = _CSS_LAST_MOVE if last else ""
        opening += f' style="{edge}{";" if edge and last else ""}{ring}"'
    if text:
        piece = _piece_style(game, text, cell["style"])
        return f'{opening}><span aria-hidden="true" style="{piece}">{escape(text)}</span></td>'
    return f"{opening}></td>"


def _board_legend(
    view: Mapping[str, Any], grid: Mapping[str, Any], sticks: Mapping[str, str]
) -> str:
    """What the shades and pieces mean, the battle line and the last move's ring."""
    entry_box = '<span style="display:inline-block;margin:0 14px 4px 0">'
    out = [f'<p style="{_CSS_LEGEND}">\n']
    for entry in legend(grid):
        if entry.is_style:
            sample = (
                '<span aria-hidden="true" style="display:inline-block;width:14px;height:14px;'
                "vertical-align:middle;border:1px solid #8c7b5a;background:"
                f'{_shade(entry.style)}"></span>'
            )
        else:
            piece = _piece_style(view["game"], entry.key, entry.style)
            key = escape(entry.key)
            sample = f'<span aria-hidden="true" style="{piece};font-size:12px">{key}</span>'
        out.append(f"{entry_box}{sample} {escape(entry.meaning)}</span>\n")
    if sticks:
        line = escape(_("battle line (the sticks)"))
        out.append(
            f'{entry_box}<span aria-hidden="true" style="display:inline-block;width:22px;'
            f'height:0;vertical-align:middle;border-top:4px solid {BATTLE_LINE}"></span> '
            f"{line}</span>\n"
        )
    if view.get("last_squares"):
        changed = escape(_("changed by the last move"))
        out.append(
            f'{entry_box}<span aria-hidden="true" style="display:inline-block;width:14px;'
            f'height:14px;vertical-align:middle;background:#ffffff;{_CSS_LAST_MOVE}"></span> '
            f"{changed}</span>\n"
        )
    out.append("</p>\n")
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _shade(style: str) -> Markup:
    return escape(square_colour(style))


@functools.lru_cache(maxsize=1024)
def _piece_style(game: str, text: str, style: str) -> Markup:
    return escape(piece_css(game, text, style))


WHITE = "background-color:#ffffff"
"""Every text with a colour of its own gets an explicit background too: a dark-mode client
that darkens backgrounds it finds unset could leave dark text on dark (issue 21)."""
WRAP = "overflow-wrap:anywhere;word-wrap:break-word"
"""Long tokens (hashes, links, receipts) break anywhere rather than widen a phone's screen;
words still break only between them where they fit."""

CSS: Mapping[str, str] = {
    "body": "margin:0;padding:0;background:#f2f2f0;color:#1f1f1f;"
    "font-family:Verdana,Arial,Helvetica,sans-serif",
    "frame": f"max-width:640px;margin:0 auto;padding:16px;background:#ffffff;color:#1f1f1f;{WRAP}",
    "marker": f"margin:0 0 12px;font-size:11px;color:#595959;{WHITE}",
    "h1": f"margin:0 0 12px;font-size:20px;line-height:1.3;color:#1f1f1f;{WHITE}",
    "h2": f"margin:20px 0 8px;font-size:16px;line-height:1.3;color:#1f1f1f;{WHITE}",
    "p": "margin:0 0 12px;font-size:15px;line-height:1.5",
    "small": f"margin:0 0 8px;font-size:13px;line-height:1.5;color:#555555;{WHITE}",
    "list": "margin:0 0 12px;padding-left:22px;font-size:15px;line-height:1.5",
    "code": "font-family:Menlo,Consolas,Courier New,monospace;font-size:14px;"
    f"background:#f1efe8;color:#1f1f1f;padding:1px 4px;border-radius:3px;{WRAP}",
    "pre": "margin:0 0 12px;padding:8px;font-family:Menlo,Consolas,Courier New,monospace;"
    "font-size:13px;line-height:1.4;background:#f7f6f2;color:#1f1f1f;"
    f"border:1px solid #e1ded4;white-space:pre-wrap;{WRAP}",
    "link": f"color:#1a56a8;text-decoration:underline;{WHITE};{WRAP}",
    "button": "display:inline-block;padding:8px 14px;background:#1a56a8;color:#ffffff;"
    "text-decoration:none;border-radius:4px;font-size:15px",
    "footer": "margin:24px 0 0;padding-top:12px;border-top:1px solid #dddddd;font-size:12px;"
    f"line-height:1.5;color:#595959;{WHITE}",
    "board": "border-collapse:separate;table-layout:fixed;width:100%;margin:0 0 4px;"
    "background:#8c7b5a;font:bold 11px Verdana,Arial,sans-serif;color:#4a4234",
    "caption": "padding:0 0 6px;text-align:left;font:14px Verdana,Arial,sans-serif;"
    f"color:#1f1f1f;{WHITE}",
    "coord": "background:#efe6d2;color:#4a4234;font:bold 11px Verdana,sans-serif",
    "coord_colour": "#efe6d2",
    "legend": f"margin:8px 0 12px;font-size:13px;line-height:1.6;color:#333333;{WHITE}",
    "last_move": f"box-shadow:inset 0 0 0 2px {LAST_MOVE_COLOUR},inset 0 0 0 3px {LAST_MOVE_EDGE}",
}
"""Inline styles shared by the HTML templates (webmail drops ``<style>`` blocks)."""

_CSS_BOARD, _CSS_CAPTION, _CSS_COORD, _COORD_COLOUR = (
    escape(CSS[name]) for name in ("board", "caption", "coord", "coord_colour")
)
_CSS_LEGEND, _CSS_LAST_MOVE, _CSS_P, _CSS_PRE, _CSS_SMALL = (
    escape(CSS[name]) for name in ("legend", "last_move", "p", "pre", "small")
)


def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATE_DIR),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # compiled once per process and kept: no file check on every mail of a storm
        auto_reload=False,
        cache_size=-1,
    )
    environment.filters.update(
        one_line=one_line,
        wrap=wrap,
        wrap_items=wrap_items,
        quote=quote,
        when=when,
        duration=duration,
        ordinal=ordinal,
        and_list=and_list,
        link_rules=link_rules,
    )
    environment.tests.update(awaits_viewer=awaits_viewer)
    i18n.install(environment)  # {% trans %} and _() in the reader's ``locale`` (reader_context)
    environment.globals.update(
        COMMANDS=COMMANDS,
        commands=_commands,
        local_command=_local_command,
        footer_labels=footer_labels,
        DIGEST_BOARDS=DIGEST_BOARDS,
        BOARD_LINE=BOARD_LINE,
        standings=standings,
        verdict=verdict,
        REPLY_MARKER=REPLY_MARKER,
        css=CSS,
        seat_label=seat_label,
        seat_name=seat_name,
        opponents=opponents,
        awaiting_orders=awaiting_orders,
        board_html=board_html,
        board_text=board_text,
        board_metrics=board_metrics,
        square_colour=square_colour,
        piece_css=piece_css,
        legend=legend,
        cell_name=cell_name,
        battle_line=battle_line,
        BATTLE_LINE=BATTLE_LINE,
        LAST_MOVE_COLOUR=LAST_MOVE_COLOUR,
        cited_rules=cited_rules,
        notations=_notations,
        board_words=position_in_words,
        options_in_words=options_in_words,
    )
    return environment


ENVIRONMENT = _environment()
