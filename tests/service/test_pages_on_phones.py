"""Issue 21, points 1, 2 and the accessibility check: every page of the service on a phone.

Each page (a public game page of every game and board size, with its last move; the play page
of each; a player page; a league page; the mail-settings pages; a not-found page) is opened in
headless Chromium from the app on a real loopback HTTP server, at 320 and 390 px and at
1200 px: the document is never wider than the viewport, the last move's squares are in view
and carry an outline mark (not a fill), and axe-core finds no serious or critical violation.
Screenshots at 390 px go to ``docs/screenshots/page-<name>-390.png``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from service import games, leagues  # noqa: F401
from service.db import Database
from service.mail.links import settings_token
from service.models import Game, Player
from tests.browser import (
    DESKTOP_WIDTH,
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,  # noqa: F401  (a fixture)
    in_view_horizontally,
    screenshot,
    server,  # noqa: F401  (a fixture)
)
from tests.service.conftest import Client, new_player
from tests.service.test_play_page import play_link

BOARDS = (
    ("epaminondas-14x12", "epaminondas", {"board": "14x12"}, 2),
    ("epaminondas-8x8", "epaminondas", {"board": "8x8"}, 2),
    ("nelaxtam-12x12", "nelaxtam", {"size": "12"}, 2),
    ("nelaxtam-16x16", "nelaxtam", {"size": "16"}, 2),
    ("anti-grid-16x16", "anti-grid", {"board": "large"}, 2),
    ("anti-grid-12x12", "anti-grid", {"board": "small"}, 2),
    ("elasta", "elasta", {}, 2),
    ("elemento-2", "elemento", {}, 2),
    ("elemento-3", "elemento", {}, 3),
    ("elemento-4", "elemento", {}, 4),
)
"""Every game and board size: (name, game, options, players)."""
LAST = "td.last, td[data-last-move], td[title$='(last move)']"
"""Squares marked as the last move's: the play page's class, the mail board's mark."""
SQUARE_SHOWN = "getComputedStyle(td).backgroundColor"
"""The colour a square shows; on the play page the last move's mark leaves it as it is."""
LONG_NAME = "Maximiliane Wolkenstein-Oberhollenzer"


@dataclass(frozen=True)
class Page:
    name: str
    path: str
    last_move: bool = False
    """The page marks the squares of a last move."""


def play_once(database: Database, game_id: int) -> None:
    """Each seat that owes a move plays its first example (sealed turns: all of them)."""
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        state = games.state_of(game)
        movers = list(state.to_act) if state.simultaneous else [state.to_act[0]]
        for seat in movers:
            player = session.get_one(Player, game.seats[seat].player_id)
            examples = state.examples(seat)
            move = examples[seat % len(examples)]  # (Elasta: equal orders move nothing)
            games.submit(session, game_id, player, game.turn, move, "api")


def pages_to_see(database: Database, admin: Client, people: list[Client]) -> list[Page]:
    """The service's pages, made real: games of every board with a move played, a finished
    game, a running league with results, a player with ratings, the mail-settings pages."""
    found: list[Page] = []
    for name, game, options, count in BOARDS:
        seats = [p.id for p in people[:count]]
        made = people[0].ok(
            "POST", "/games", {"game": game, "options": options, "seats": seats}, status=201
        )
        game_id = int(made["game"]["id"])
        play_once(database, game_id)
        found.append(Page(f"game-{name}", f"/games/{game_id}", last_move=True))
        with database.transaction() as session:
            state = games.state_of(session.get_one(Game, game_id))
            mover = state.to_act[-1]
        found.append(Page(f"play-{name}", play_link(database, people[mover], game_id), True))
    data = {"name": f"Cup of {LONG_NAME}", "game": "countdown"}
    league = admin.ok("POST", "/leagues", data, status=201)
    path = f"/leagues/{league['league']['id']}"
    admin.ok("POST", path + "/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", path + "/accept")
    started = admin.ok("POST", path + "/start")["league"]
    for played in started["rounds"][0]["games"]:
        if played.get("game"):
            loser = admin.ok("GET", f"/games/{played['game']}")["game"]["seats"][1]["player"]
            next(p for p in people if p.id == loser["id"]).ok(
                "POST", f"/games/{played['game']}/resign"
            )
    found.append(Page("league", path))
    found.append(Page("player", f"/players/{people[0].id}"))
    token = settings_token(database.settings.secret(), people[0].id)
    found += [
        Page("mail-settings", f"/mail/{token}"),
        Page("mail", "/mail"),
        Page("unsubscribe", f"/mail/{token}/unsubscribe"),
        Page("not-found", "/games/424242"),
    ]
    return found


@pytest.fixture
def people(admin: Client) -> list[Client]:
    first = new_player(admin, "Alice")
    first.ok("PATCH", "/players/me", {"name": LONG_NAME})
    return [first, *(new_player(admin, name) for name in ("Bob", "Carol", "Dave"))]


def test_every_page_fits_a_phone_and_shows_the_last_move(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    database: Database,
    admin: Client,
    people: list[Client],
) -> None:
    """Issue 21, point 1 (pages): at 320 and 390 px (and 1200) no page of the service is wider
    than the viewport, tables included; point 2: the public game page and the play page show
    the last move, its squares in view and marked by an outline that leaves the square's own
    colour visible; and axe-core finds no serious or critical violation on any page."""
    problems: list[str] = []
    for seen in pages_to_see(database, admin, people):
        for width in (*PHONE_WIDTHS, DESKTOP_WIDTH):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(server + seen.path, wait_until="load")
            try:
                assert_fits(page, f"{seen.name} at {width}")
            except AssertionError as error:
                problems.append(str(error))
            if seen.last_move:
                marked = page.locator(LAST)
                if not marked.count():
                    problems.append(f"{seen.name}: no last move marked")
                filled = page.eval_on_selector_all(
                    "td.last", f"els => els.filter(td => {SQUARE_SHOWN} !== td.style.background)"
                )
                if filled:
                    problems.append(f"{seen.name}: the last move hides a square's colour")
                hidden = in_view_horizontally(page, LAST)
                if hidden:
                    problems.append(f"{seen.name} at {width}: last move off screen {hidden}")
            if width == 390:
                screenshot(page, f"page-{seen.name}-390")
                problems += [f"{seen.name}: {v}" for v in axe_violations(page)]
            page.close()
    assert not problems, "\n".join(problems)


def looked_at(page: Any, what: str) -> list[str]:
    """What is wrong with the page as it stands: too wide, or an axe-core violation."""
    try:
        assert_fits(page, what)
    except AssertionError as error:
        return [str(error)]
    return [f"{what}: {violation}" for violation in axe_violations(page)]


@pytest.mark.parametrize("width", PHONE_WIDTHS)
def test_the_play_page_after_preview_and_after_send_fits_a_phone(
    browser: Any,  # noqa: F811
    server: str,  # noqa: F811
    database: Database,
    people: list[Client],
    width: int,
) -> None:
    """Issue 21, points 1 and 6 (play page): the page as a player walks it on a phone, the
    preview board (Anti-Grid 16x16, Black's side of Epaminondas 14x12) and, for sealed orders
    (Nelaxtam 16x16), the "sent, sealed" notice with its receipt and the notice after the
    turn resolved, all fit the width and pass axe-core."""
    problems: list[str] = []
    for name, game, options in (
        ("anti-grid-16x16", "anti-grid", {"board": "large"}),
        ("epaminondas-14x12", "epaminondas", {"board": "14x12"}),
        ("nelaxtam-16x16", "nelaxtam", {"size": "16"}),
    ):
        seats = [people[0].id, people[1].id]
        data = {"game": game, "options": options, "seats": seats}
        game_id = int(people[0].ok("POST", "/games", data, status=201)["game"]["id"])
        if game == "epaminondas":
            play_once(database, game_id)  # Black's turn
        for mover in (0, 1) if game == "nelaxtam" else (1 if game == "epaminondas" else 0,):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(server + play_link(database, people[mover], game_id))
            example = page.inner_text("label[for=move] code")
            page.fill("#move", example)
            with page.expect_navigation(wait_until="load"):  # the form's POST, then its answer
                page.click("#preview")
            assert page.locator("#preview-grid").count() == 1
            problems += looked_at(page, f"{name}, preview by seat {mover}, at {width}")
            with page.expect_navigation(wait_until="load"):
                page.click("#send")
            problems += looked_at(page, f"{name}, sent by seat {mover}, at {width}")
            if width == 390 and game == "nelaxtam" and mover == 0:
                screenshot(page, "page-play-sealed-390")
            page.close()
    assert not problems, "\n".join(problems)
