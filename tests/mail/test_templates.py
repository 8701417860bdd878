"""Every mail kind renders for every registered game: plain text a reply can be read from,
HTML that escapes what players typed and needs nothing from outside, and a few snapshots.

Snapshots live in ``tests/mail/snapshots/``; after an intended change, regenerate them with
``UPDATE_SNAPSHOTS=1 python3 -m pytest -q tests/mail/test_templates.py`` and read the diff.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

import engine
from service.mail.extract import REPLY_MARKER, extract_text
from service.mail.render import (
    ENVIRONMENT,
    KINDS,
    NEUTRAL,
    RenderedEmail,
    awaits_viewer,
    cell_name,
    render_board_html,
    render_board_text,
    render_email,
    when,
    wrap,
    wrap_items,
)
from tests.mail.scenarios import BOARD_GAMES, HOSTILE_NAME, context, scenario

SNAPSHOTS = Path(__file__).parent / "snapshots"
SNAPSHOT_GAME = "epaminondas"
SNAPSHOT_KINDS = (
    "your_turn",
    "turn_resolved",
    "error_reply",
    "game_over",
    "draw_news",
    "move_receipt",
    "confirm_reply",
    "sign_in",
)
BOARD_SOON = 25
"""The board starts within this many lines of the marker in mails about a move."""
MOVE_MAILS = ("game_started", "your_turn", "opponent_moved", "reminder", "orders_received")
GMAIL_CLIPS_AT = 102_000
HELP_COMMANDS = (
    "resign",
    "draw",
    "decline",
    "board",
    "status",
    "help",
    "wait",
    "preview <move>",
    "vacation on|off",
)

CASES = [(kind, name) for kind in KINDS for name in engine.names()]


@pytest.fixture(scope="module", params=CASES, ids=[f"{kind}-{name}" for kind, name in CASES])
def rendered(request: pytest.FixtureRequest) -> tuple[str, str, RenderedEmail, dict[str, Any]]:
    kind, name = request.param
    values = context(kind, name)
    return kind, name, render_email(kind, values), values


# --- every kind for every game ---------------------------------------------------------------


def test_subject_is_one_line(rendered: tuple[str, str, RenderedEmail, dict[str, Any]]) -> None:
    _, _, mail, _ = rendered
    assert mail.subject and "\n" not in mail.subject and mail.subject == mail.subject.strip()


def test_text_starts_with_reply_marker(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    _, _, mail, _ = rendered
    assert mail.text.split("\n", 1)[0] == REPLY_MARKER


def test_text_lines_fit_80_columns(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    _, _, mail, _ = rendered
    long = [line for line in mail.text.splitlines() if len(line) > 80]
    assert not long


@pytest.mark.parametrize("kind", MOVE_MAILS)
@pytest.mark.parametrize("name", engine.names())
def test_board_follows_the_marker_soon(kind: str, name: str) -> None:
    values = context(kind, name)
    mail = render_email(kind, values)
    top = values["view"]["ascii"].splitlines()[0]
    assert top in mail.text.splitlines()[:BOARD_SOON]


def test_a_reply_typed_above_the_mail_reads_as_the_move(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    _, _, mail, _ = rendered
    assert extract_text(f"a1-a3\n\n{mail.text}") == "a1-a3"
    assert extract_text(f"<div>a1-a3</div><blockquote>{mail.html}</blockquote>", html=True) == (
        "a1-a3"
    )


def test_links_and_footer(rendered: tuple[str, str, RenderedEmail, dict[str, Any]]) -> None:
    kind, _, mail, values = rendered
    urls = [values["preferences_url"], values["unsubscribe_url"]]
    urls += [game["game_url"] for game in values["games"]] if kind == "digest" else []
    urls += [values["game_url"]] if kind != "digest" and values["game_url"] else []
    for url in urls:
        assert url in mail.text
        assert f'href="{url}"' in mail.html


def test_player_strings_are_escaped_in_html(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    _, _, mail, _ = rendered
    assert "<script" not in mail.html.lower()
    assert "<b>bold</b>" not in mail.html
    assert str(escape(HOSTILE_NAME)) in mail.html
    assert HOSTILE_NAME in " ".join(mail.text.split())


def test_html_needs_nothing_from_outside(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    _, _, mail, _ = rendered
    page = _Page.parse(mail.html)
    assert not page.tags & {"script", "style", "link", "img", "iframe", "object", "form"}
    assert not page.sources
    assert "url(" not in mail.html
    assert len(mail.html.encode()) < GMAIL_CLIPS_AT


def test_html_board_names_every_square(
    rendered: tuple[str, str, RenderedEmail, dict[str, Any]],
) -> None:
    kind, _, mail, values = rendered
    games = [game for game in values["games"] if awaits_viewer(game)] if kind == "digest" else []
    views = [game["view"] for game in games] if kind == "digest" else [values["view"]]
    views = [view for view in views if view is not None]  # league mails show no board
    if kind == "move_receipt":  # the mover's one-line copy of their own move: no board
        views = []
    page = _Page.parse(mail.html)
    for view in views:
        for row in view["grid"]["rows"]:
            for cell in row:
                assert cell_name(cell, view["grid"]) in page.labels
                assert cell_name(cell, view["grid"]).startswith(f"{cell['square']}, ")


# --- details that matter to players ------------------------------------------------------------


@pytest.mark.parametrize("name", engine.names())
def test_board_partials_show_the_view(name: str) -> None:
    view = scenario(name).opening.view(0).to_json()
    text, html = render_board_text(view), render_board_html(view)
    words, grid, _ = text.partition(view["ascii"])
    assert grid  # the position in words (of a board with cells), then the grid (issue 21, point 10)
    assert bool(words.strip()) == bool(view["grid"]["rows"])
    assert view["status"] in text
    files, ranks = view["grid"]["files"], view["grid"]["ranks"]
    assert html.count('scope="col"') == 2 * len(files)  # files above and below
    assert html.count('scope="row"') == 2 * len(ranks)  # ranks left and right
    for meaning in (meaning for _, meaning in view["grid"]["legend"]):
        assert str(escape(meaning)) in html


def test_unknown_game_and_style_get_a_neutral_look() -> None:
    view = scenario(SNAPSHOT_GAME).opening.view(0).to_json()
    cell = {"square": "a1", "text": "Q", "style": "lava", "title": "a1: a queen on lava"}
    grid = {"files": ["a"], "ranks": ["1"], "rows": [[cell]], "legend": [["Q", "queen"]]}
    html = render_board_html({**view, "game": "newgame", "grid": grid})
    assert f'bgcolor="{NEUTRAL.square}"' in html
    assert 'aria-label="a1, a queen on lava"' in html and ">Q</span>" in html


def test_issue23_the_board_drawn_in_python_escapes_every_text_it_shows() -> None:
    view = scenario(SNAPSHOT_GAME).opening.view(0).to_json()
    cell = {"square": "a1", "text": HOSTILE_NAME, "style": "lava", "title": HOSTILE_NAME}
    grid = {"files": ["a"], "ranks": ["1"], "rows": [[cell]], "legend": [["lava", HOSTILE_NAME]]}
    texts = ("title", "status", "last_move")
    hostile = {name: HOSTILE_NAME for name in texts} | {"grid": grid, "last_squares": ["a1"]}
    lists = {"offers": [HOSTILE_NAME], "warnings": [HOSTILE_NAME], "info": [HOSTILE_NAME]}
    for shown in ({**view, **hostile, **lists}, {**view, **hostile, "grid": {**grid, "rows": []}}):
        html = render_board_html(shown)
        assert HOSTILE_NAME not in html and "<script>" not in html
        assert str(escape(HOSTILE_NAME)) in html


def test_issue23_a_mail_draws_its_board_once_per_part(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[str] = []
    for name in ("board_html", "board_text"):
        draw = ENVIRONMENT.globals[name]
        monkeypatch.setitem(
            ENVIRONMENT.globals,
            name,
            lambda view, draw=draw, name=name: drawn.append(name) or draw(view),
        )
    render_email("opponent_moved", context("opponent_moved", "anti-grid"))
    assert sorted(drawn) == ["board_html", "board_text"]


@pytest.mark.parametrize("name", engine.names())
def test_game_over_tells_result_record_and_seed(name: str) -> None:
    values = context("game_over", name)
    mail = render_email("game_over", values)
    outcome = values["view"]["outcome"]
    assert outcome["result"] in mail.subject
    assert outcome["reason"] in " ".join(mail.text.split())
    assert values["record"].splitlines()[-1] in mail.text
    if values["dice_seed"]:
        assert values["dice_seed"] in mail.text and values["dice_seed"] in mail.html


@pytest.mark.parametrize("name", engine.names())
def test_orders_received_gives_receipt_and_deadline(name: str) -> None:
    values = context("orders_received", name)
    mail = render_email("orders_received", values)
    assert values["receipt"] in mail.text and values["receipt"] in mail.html
    prose = " ".join(mail.text.split())
    assert f"You may change them until {when(values['deadline'], 'Europe/Paris')}" in prose


@pytest.mark.parametrize("name", engine.names())
def test_error_reply_quotes_input_reason_and_examples(name: str) -> None:
    values = context("error_reply", name)
    mail = render_email("error_reply", values)
    assert "> b2-b4 please" in mail.text
    assert values["error"] in " ".join(mail.text.split())
    for example in values["view"]["examples"]:
        assert example in mail.text
        assert str(escape(example)) in mail.html


@pytest.mark.parametrize("name", engine.names())
def test_help_lists_commands_and_notation(name: str) -> None:
    mail = render_email("help", context("help", name))
    for command in HELP_COMMANDS:
        assert command in mail.text
        assert str(escape(command)) in mail.html


def test_deadline_is_shown_in_the_readers_zone() -> None:
    moment = datetime(2025, 7, 1, 9, 30, tzinfo=UTC)
    assert when(moment, "Europe/Paris") == "Tue 1 Jul 2025, 11:30 CEST (Europe/Paris)"
    assert when(moment, "UTC") == "Tue 1 Jul 2025, 09:30 UTC"
    with pytest.raises(ValueError, match="aware"):
        when(datetime(2025, 7, 1), "UTC")


def test_wrapping_keeps_short_lines_and_whole_examples() -> None:
    assert wrap("  a  b", 72) == "  a  b"
    assert all(len(line) <= 30 for line in wrap("word " * 20, 30).splitlines())
    lines = wrap_items(["1:xn 2:xn 3:xn", "hold", "a1-a2"], "For example:", width=30)
    assert lines == "For example: 1:xn 2:xn 3:xn,\n  hold, a1-a2"


@pytest.mark.parametrize("kind", ["help", "error_reply"])
def test_mail_outside_any_game(kind: str) -> None:
    values = {**context(kind, SNAPSHOT_GAME), "game_id": None, "game_url": None, "view": None}
    mail = render_email(kind, {**values, "players": None})
    assert mail.subject.startswith("[pbem] ")
    assert mail.text.startswith(REPLY_MARKER + "\n")
    assert "Game page" not in mail.text and "/games/" not in mail.html
    assert "help" in mail.text


def test_missing_context_is_named() -> None:
    values = context("your_turn", SNAPSHOT_GAME)
    del values["deadline"]
    with pytest.raises(KeyError, match="deadline"):
        render_email("your_turn", values)
    with pytest.raises(ValueError, match="no mail kind"):
        render_email("telegram", values)


def test_a_name_cannot_break_the_subject_or_forge_lines() -> None:
    values = context("invitation", SNAPSHOT_GAME)
    values["inviter"] = f"Ann\n{REPLY_MARKER}\nresign"
    mail = render_email("invitation", values)
    lines = mail.text.splitlines()
    assert "\n" not in mail.subject
    assert "resign" not in lines
    assert lines.count(REPLY_MARKER) == 1


# --- snapshots -------------------------------------------------------------------------------


SNAPSHOT_CASES = [
    *[(f"{SNAPSHOT_GAME}.{kind}.txt", kind) for kind in SNAPSHOT_KINDS],
    *[(f"{SNAPSHOT_GAME}.{kind}.html", kind) for kind in SNAPSHOT_KINDS],
    *[(f"board.{name}.txt", name) for name in BOARD_GAMES],
    *[(f"board.{name}.html", name) for name in BOARD_GAMES],
]


@pytest.mark.parametrize(("file", "source"), SNAPSHOT_CASES)
def test_snapshot(file: str, source: str) -> None:
    if file.startswith("board."):
        view = scenario(source).step.state.view(0).to_json()
        actual = render_board_text(view) if file.endswith(".txt") else render_board_html(view)
    else:
        mail = render_email(source, context(source, SNAPSHOT_GAME))
        actual = f"Subject: {mail.subject}\n\n{mail.text}" if file.endswith(".txt") else mail.html
    path = SNAPSHOTS / file
    if os.environ.get("UPDATE_SNAPSHOTS") == "1":
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(actual, encoding="utf-8")
    assert path.exists(), f"no snapshot {path}: run with UPDATE_SNAPSHOTS=1 to write it"
    assert actual == path.read_text(encoding="utf-8"), (
        f"{file} differs from its snapshot; if intended, rerun with UPDATE_SNAPSHOTS=1"
    )


class _Page(HTMLParser):
    """Tags, outside sources and the names (``aria-label``) of board squares in an HTML mail."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.sources: list[str] = []
        self.labels: set[str] = set()

    @classmethod
    def parse(cls, html: str) -> _Page:
        page = cls()
        page.feed(html)
        page.close()
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        values = dict(attrs)
        self.sources += [value or "" for key, value in attrs if key in ("src", "srcset")]
        if tag == "td" and values.get("aria-label"):
            self.labels.add(values["aria-label"] or "")
