"""The rules pages: ``/rules`` lists the games, ``/rules/<game>`` gives one game's rules, written
for players (issue 21): how to write moves first, with examples, then every rule under a heading
whose ``id`` is the rule's id (``/rules/epaminondas#EPA-5``), so that every error that cites a rule
links to it (:func:`rule_links`).

The text is the project's own, one Markdown file per game beside this module
(``service/rules/<game>.md``), written from the rule books. Each file starts with a few
``key: value`` lines between ``---`` lines: ``title``, ``players``, ``summary`` (one sentence on
the notation, for the ``help`` mail) and ``example`` (a move legal from the start). In the body:

- ``### EPA-5 How a phalanx moves``: a rule; the heading gets ``id="EPA-5"``.
- a fenced block ```` ```example ```` lists moves (one a line) that are legal from the start for
  the first seat to act; ```` ```refused ```` lists moves the engine refuses there, and the page
  shows the engine's own answer, the cited rules linked. Options after the word: ``seat=1`` (the
  seat that writes it, for sealed games), ``roll=G+R`` (the dice), ``players=3``.
  ``tests/service/test_rules_pages.py`` checks every one against the engine.

Each page in another language is ``service/rules/<lang>/<game>.md`` (issue 24): the same front
matter keys, the same rule ids in the same order, the same example and refused moves byte for
byte; only the prose, the headings' titles and the front matter's ``title`` and ``summary`` are
translated (``example`` is the same move). A reader gets their language's page where there is
one and the English page otherwise (:func:`book`), the engine's answers to refused moves in the
language of the page; the ids, and so every link to a rule, are the same in every language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, render_template, request, session
from markdown_it import MarkdownIt
from markdown_it.token import Token
from markupsafe import Markup, escape

import engine
from service import i18n
from service.i18n import N_
from service.models import Player

HERE = Path(__file__).resolve().parent
RULE_ID = re.compile(r"\b([A-Z]{3}-\d+)\b")
"""A rule id as the rule books and the engine's messages write it."""
_RULE_HEADING = re.compile(r"^([A-Z]{3}-\d+)\s+(.*)$")
CODE_STYLE = "overflow-wrap:anywhere;word-break:normal"
"""Long tokens (a position string) wrap at any character rather than widen a phone's page."""

blueprint = Blueprint("rules", __name__, template_folder="../web_templates")


@dataclass(frozen=True)
class Example:
    """A move written on a rules page, with what it needs of the start position."""

    text: str
    refused: bool = False
    seat: int | None = None
    roll: str | None = None
    players: int | None = None

    def start(self, name: str) -> engine.State:
        """The start position the example is written for: chance steps (seating, the dice)
        taken with ``roll`` where it is one of the outcomes, else the first outcome."""
        state = engine.new_game(name, {}, self.players).initial_state()
        while not state.to_act and not state.is_over:
            outcomes = state.chance_outcomes()
            state = state.apply_chance(self.roll if self.roll in outcomes else outcomes[0]).state
        return state

    def check(self, name: str) -> str:
        """The engine's reading of the example (canonical text); raises the engine's error."""
        state = self.start(name)
        seat = state.to_act[0] if self.seat is None else self.seat
        return state.format(state.parse(seat, self.text))


@dataclass(frozen=True)
class Book:
    """One game's rules page, in the language ``locale``."""

    name: str
    locale: str
    title: str
    players: str
    summary: str
    example: str
    html: Markup
    ids: tuple[str, ...]
    examples: tuple[Example, ...] = field(default=())


def names() -> tuple[str, ...]:
    """The games with a rules page: every game the engine has (but a test's toys)."""
    return tuple(name for name in engine.names() if (HERE / f"{name}.md").is_file())


def languages(name: str) -> tuple[str, ...]:
    """The languages the rules of game ``name`` are written in: English, then each language
    with its own file (``service/rules/<lang>/<game>.md``)."""
    return tuple(
        code
        for code in i18n.LANGUAGES
        if code == i18n.DEFAULT or (HERE / code / f"{name}.md").is_file()
    )


def source(name: str, locale: str = i18n.DEFAULT) -> Path:
    """The file of game ``name``'s rules in ``locale``: the English one for English and for a
    language with no file for the game."""
    translated = HERE / locale / f"{name}.md"
    return translated if locale != i18n.DEFAULT and translated.is_file() else HERE / f"{name}.md"


def game_url(base: str, game: str) -> str | None:
    """The rules page of ``game``, or None for a game without one."""
    return url(base, game) if game in names() else None


def url(base: str, game: str | None = None, rule: str | None = None) -> str:
    """``<base>/rules`` (every game), ``<base>/rules/<game>``, and ``#<rule>`` for one rule."""
    return f"{base}/rules" + (f"/{game}" if game else "") + (f"#{rule}" if rule else "")


def rule_links(game: str | None, message: str, base: str = "") -> list[tuple[str, str]]:
    """Each rule id ``message`` cites that the rules page of ``game`` has, once, in order, with
    its link ``<base>/rules/<game>#<ID>``. Without a game, the game is the one whose page has
    the id (ids start with the game's own three letters)."""
    links: list[tuple[str, str]] = []
    for rule in dict.fromkeys(RULE_ID.findall(message or "")):
        owner = game if game is not None else _owner(rule)
        if owner in names() and rule in book(owner).ids:
            links.append((rule, url(base, owner, rule)))
    return links


def linked(message: str, links: Sequence[tuple[str, str]], style: str = "") -> Markup:
    """``message`` as HTML with each rule id of ``links`` a link to its rule (a mail gives
    the links their ``style`` inline)."""
    targets = dict(links)
    parts = RULE_ID.split(str(message))
    styled = Markup(' style="{}"').format(style) if style else Markup("")
    out = [
        Markup('<a href="{}"{}>{}</a>').format(targets[part], styled, part)
        if index % 2 and part in targets
        else escape(part)
        for index, part in enumerate(parts)
    ]
    return Markup("").join(out)


def notation(game: str, locale: str = i18n.DEFAULT) -> dict[str, str]:
    """What the ``help`` mail says of a game's notation: its title, summary and an example, in
    ``locale`` where the game's rules are written in it (else in English)."""
    rules = book(game, locale)
    return {"name": game, "title": rules.title, "summary": rules.summary, "example": rules.example}


def _owner(rule: str) -> str | None:
    prefix = rule.split("-")[0] + "-"
    return next((name for name in names() if book(name).ids[0].startswith(prefix)), None)


def book(name: str, locale: str = i18n.DEFAULT) -> Book:
    """The rules page of game ``name`` in ``locale``, or in English where the game's rules are
    not written in it (KeyError for a game without a page)."""
    if name not in names():
        raise KeyError(name)
    wanted = i18n.supported(locale) or i18n.DEFAULT
    return _book(name, wanted if wanted in languages(name) else i18n.DEFAULT)


@functools.cache
def _book(name: str, locale: str) -> Book:
    meta, body = _front_matter(source(name, locale).read_text(encoding="utf-8"))
    renderer = _markdown(name, locale)
    env: dict[str, Any] = {"examples": []}
    tokens = renderer.parse(body, env)
    ids = []
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h3":
            inline = tokens[index + 1]
            found = _RULE_HEADING.match(inline.content)
            if found:
                token.attrSet("id", found.group(1))
                ids.append(found.group(1))
    for index, token in enumerate(tokens):
        if token.type == "inline" and tokens[index - 1].type != "heading_open":
            token.children = _linking(token.children or [], set(ids))
    html = renderer.renderer.render(tokens, renderer.options, env)
    return Book(
        name=name,
        locale=locale,
        title=meta["title"],
        players=_player_counts(meta["players"], locale),
        summary=meta["summary"],
        example=meta["example"],
        html=Markup(html),
        ids=tuple(ids),
        examples=tuple(env["examples"]),
    )


PLAYER_RANGE = N_("%(fewest)s to %(most)s")


def _player_counts(players: str, locale: str) -> str:
    """The front matter's ``players`` (``2`` or ``2 to 4``, the same in every language's file)
    as ``locale`` writes it."""
    fewest, to, most = players.partition(" to ")
    return i18n.gettext(locale, PLAYER_RANGE, fewest=fewest, most=most) if to else players


def _linking(children: list[Token], ids: set[str]) -> list[Token]:
    """Inline tokens with each rule id of the page in running text made a link to its rule."""
    out: list[Token] = []
    for child in children:
        parts = RULE_ID.split(child.content) if child.type == "text" else [child.content]
        if len(parts) == 1:
            out.append(child)
            continue
        for index, part in enumerate(parts):
            if index % 2 and part in ids:
                out.append(Token("link_open", "a", 1, attrs={"href": f"#{part}"}))
                out.append(Token("text", "", 0, content=part))
                out.append(Token("link_close", "a", -1))
            elif part:
                out.append(Token("text", "", 0, content=part))
    return out


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    head, sep, body = text.removeprefix("---\n").partition("\n---\n")
    if not text.startswith("---\n") or not sep:
        raise ValueError("a rules page starts with its --- key: value --- lines")
    meta = {}
    for line in head.splitlines():
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip()
    return meta, body


EXAMPLE_MOVES = N_("example moves")
REFUSED_MOVES = N_("moves that are refused")
WE_ANSWER = N_("we answer “%(answer)s”")
ACCEPTED = N_("(the engine accepts this move)")


def _markdown(name: str, locale: str) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False})

    def code_inline(_: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        return f'<code style="{CODE_STYLE}">{escape(tokens[idx].content)}</code>'

    def fence(_: Any, tokens: Sequence[Token], idx: int, options: Any, env: Any) -> str:
        kind, *args = tokens[idx].info.split()
        if kind not in ("example", "refused"):
            return f"<pre>{escape(tokens[idx].content)}</pre>\n"
        given = dict(arg.partition("=")[::2] for arg in args)
        items = []
        for line in tokens[idx].content.splitlines():
            if not line.strip():
                continue
            example = Example(
                text=line.strip(),
                refused=kind == "refused",
                seat=int(given["seat"]) if "seat" in given else None,
                roll=given.get("roll"),
                players=int(given["players"]) if "players" in given else None,
            )
            env["examples"].append(example)
            items.append(_example_item(name, example, locale))
        label = escape(i18n.gettext(locale, REFUSED_MOVES if kind == "refused" else EXAMPLE_MOVES))
        return f'<ul class="moves" aria-label="{label}">\n{"".join(items)}</ul>\n'

    md.add_render_rule("code_inline", code_inline)
    md.add_render_rule("fence", fence)
    return md


def _example_item(name: str, example: Example, locale: str) -> str:
    code = Markup('<code style="{}">{}</code>').format(CODE_STYLE, example.text)
    if not example.refused:
        return f"<li>{code}</li>\n"
    try:
        example.check(name)
    except engine.EngineError as error:
        answer = error.render(*i18n.translators(locale))
    else:  # the test of the rules pages fails on this; the page still renders
        answer = i18n.gettext(locale, ACCEPTED)
    links = [(rule, f"#{rule}") for rule in RULE_ID.findall(answer)]
    we_answer = i18n.gettext(locale, WE_ANSWER, answer=linked(answer, links))
    return f"<li>{code}: {we_answer}</li>\n"


# -- pages ------------------------------------------------------------------------------------


@blueprint.app_template_filter("cite_rules")
def cite_rules(message: str, game: str) -> Markup:
    """A page's filter: ``message`` with each rule it cites a link to the game's rules page."""
    return linked(message, rule_links(game, message))


def reader_locale() -> str:
    """The language of a rules page's reader: the signed-in player's, else the browser's
    (``Accept-Language``) among the supported ones, else English."""
    chosen = None
    player_id = session.get("player")
    if isinstance(player_id, int):
        with current_app.extensions["pbem.database"].transaction() as db_session:
            player = db_session.get(Player, player_id)
            chosen = i18n.supported(player.language) if player is not None else None
    return chosen or i18n.best_of(request.accept_languages) or i18n.DEFAULT


@blueprint.get("/rules")
def index() -> Any:
    locale = reader_locale()
    books = [book(name, locale) for name in names()]
    return render_template("rules_index.html", books=books, locale=locale)


@blueprint.get("/rules/<game>")
def page(game: str) -> Any:
    locale = reader_locale()
    books = [book(name, locale) for name in names()]
    if game not in names():
        titles = ", ".join(other.title for other in books)
        what = i18n.gettext(locale, NO_RULES, game=repr(game), titles=titles)
        return render_template("rules_not_found.html", what=what, books=books, locale=locale), 404
    shown = book(game, locale)
    # The page is in the language of its rules: English throughout where they are not written
    # in the reader's, so that <html lang> names the language of the text.
    books = [book(name, shown.locale) for name in names()]
    return render_template("rules.html", book=shown, books=books, locale=shown.locale)


NO_RULES = N_("There are no rules for %(game)s: we have rules for %(titles)s.")
