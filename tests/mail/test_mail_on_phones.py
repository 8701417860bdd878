"""The HTML mails on a phone, in headless Chromium (issue 21, points 1, 2 and 10).

Every mail kind of every game, at every board size the game's options allow and with 2, 3
and 4 players of Elemento, is laid out at 320 and 390 px (and 1200 px): no sideways scroll,
and the squares of the last move inside the screen. axe-core finds no serious or critical
problem in them. The last move is a ring that leaves the square's own state in view, and
Elasta's board draws its battle line.

``SCREENSHOTS=1`` saves one mail per game at 390 px to ``docs/screenshots/mail-<game>-390.png``,
and one per language (issue 24) to ``mail-<lang>-390.png``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from service.i18n import LANGUAGES
from service.mail.boards import reader_view
from service.mail.render import (
    BATTLE_LINE,
    CSS,
    DIGEST_BOARDS,
    KINDS,
    LAST_MOVE_MARK,
    awaits_viewer,
    render_board_html,
    render_email,
    square_colour,
    status_in,
)
from tests.browser import (
    DESKTOP_WIDTH,
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,
    in_view_horizontally,
    screenshot,
)
from tests.mail.scenarios import BOARD_GAMES, Variant, board_variants, context, scenario

__all__ = ["browser"]  # the module's Chromium fixture

VARIANTS = board_variants()
WIDTHS = (*PHONE_WIDTHS, DESKTOP_WIDTH)
NO_BOARD = tuple(kind for kind in KINDS if kind.startswith("league_") and kind != "league_result")
"""League mails that belong to no game: the same for every game, laid out once."""
LAST = f"[{LAST_MOVE_MARK.split('=')[0]}]"
"""CSS selector of the squares the last move changed."""


def kinds_of(variant: Variant) -> list[str]:
    return [kind for kind in KINDS if kind not in NO_BOARD or variant == VARIANTS[0]]


def mail_html(kind: str, variant: Variant) -> str:
    return render_email(kind, context(kind, variant.name, variant.options, variant.players)).html


@pytest.fixture(scope="module")
def pages(browser: Any) -> Iterator[dict[int, Any]]:
    """One page per width, reused for every mail (``set_content``)."""
    opened = {width: browser.new_page(viewport={"width": width, "height": 900}) for width in WIDTHS}
    yield opened
    for page in opened.values():
        page.close()


def shown_last_squares(kind: str, variant: Variant) -> int:
    """How many squares the mail marks as changed by the last move."""
    values = context(kind, variant.name, variant.options, variant.players)
    if kind == "move_receipt":  # one line, no board
        return 0
    if kind == "digest":
        views = [game["view"] for game in values["games"] if awaits_viewer(game)]
    else:
        views = [values["view"]] if values["view"] else []
    return sum(len(view.get("last_squares") or ()) for view in views)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.id)
def test_every_mail_fits_the_screen_with_the_last_move_in_view(
    pages: dict[int, Any], variant: Variant
) -> None:
    """Issue 21, point 1: every mail kind of every board size fits 320 and 390 px (and a
    desktop) without a sideways scroll, and every square of the last move is on screen."""
    for kind in kinds_of(variant):
        html = mail_html(kind, variant)
        for width, page in pages.items():
            page.set_content(html, wait_until="load")
            what = f"{kind} of {variant.id}"
            assert_fits(page, what)
            assert in_view_horizontally(page, LAST) == [], f"{what} at {width}px"
            assert page.locator(LAST).count() == shown_last_squares(kind, variant), what


@pytest.mark.parametrize("kind", KINDS)
def test_axe_finds_no_serious_problem_in_a_mail_of_each_kind(
    pages: dict[int, Any], kind: str
) -> None:
    """Issue 21, point 10: axe-core reports no serious or critical violation (contrast of the
    reply marker and the board's caption, names of squares...) in each mail kind; the games
    take turns so that each game's board is checked too."""
    name = BOARD_GAMES[list(KINDS).index(kind) % len(BOARD_GAMES)]
    page = pages[PHONE_WIDTHS[-1]]
    page.set_content(mail_html(kind, Variant(name)), wait_until="load")
    assert axe_violations(page) == []


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.id)
def test_axe_finds_no_serious_problem_in_any_mail_on_a_phone(
    pages: dict[int, Any], variant: Variant
) -> None:
    """Issue 21, points 1 and 10: every mail kind × game × board size, at both phone widths."""
    for kind in kinds_of(variant):
        html = mail_html(kind, variant)
        for width in PHONE_WIDTHS:
            page = pages[width]
            page.set_content(html, wait_until="load")
            found = axe_violations(page)
            assert found == [], f"{kind} of {variant.id} at {width}px: {found}"


def _cells(html: str) -> dict[str, str]:
    """Each board square's ``<td ...>`` tag by the square its name begins with."""
    return {
        match.group(1): match.group(0)
        for match in re.finditer(r'<td aria-label="([a-z]+\d+), [^>]*>', html)
    }


@pytest.mark.parametrize("flip", [False, True], ids=["White's side", "Black's side"])
def test_elasta_html_board_draws_the_battle_line(flip: bool) -> None:
    """Issue 21, point 2: Elasta's HTML board draws the battle line as the ASCII board's
    ``===``: each file's stick on the edge between rank h and h + 1 (ELA-1), on the lower
    edge of rank 1 when it stands on White's ground line; Black's board is turned."""
    state = scenario("elasta").step.state
    heights = state.heights  # type: ignore[attr-defined]
    view = reader_view(state.view(1 if flip else 0).to_json(), flip, None, [])
    cells = _cells(render_board_html(view))
    up, down = ("bottom", "top") if flip else ("top", "bottom")
    expected = {}
    for file, height in zip("abcdefgh", heights, strict=True):
        square, edge = (f"{file}{height}", up) if height else (f"{file}1", down)
        expected[square] = edge
    drawn = {
        square: match.group(1)
        for square, tag in cells.items()
        if (match := re.search(rf"border-(top|bottom):4px solid {BATTLE_LINE}", tag))
    }
    assert drawn == expected
    assert len(set(heights)) > 1  # a line with steps, not a straight one


def test_last_move_ring_leaves_side_and_destroyed_squares_in_view(pages: dict[int, Any]) -> None:
    """Issue 21, point 2: a square the last move changed keeps its own colour under the mark,
    so Elasta's side of the battle line and a destroyed Nelaxtam square still show; the mark
    is a ring round its edge."""
    elasta = context("turn_resolved", "elasta")["view"]
    finished = scenario("nelaxtam").finished.view(0).to_json()
    rows = finished["grid"]["rows"]
    destroyed = [cell["square"] for row in rows for cell in row if cell["style"] == "destroyed"]
    assert destroyed, "the seeded Nelaxtam game destroys a square"
    nelaxtam = reader_view(finished, False, "Last move: X e5", destroyed[:1])
    page = pages[PHONE_WIDTHS[0]]
    for view in (elasta, nelaxtam):
        page.set_content(render_board_html(view), wait_until="load")
        marked = [cell for row in view["grid"]["rows"] for cell in row if cell.get("last")]
        styles = {cell["style"] for cell in marked}
        assert styles & {"white-side", "black-side", "destroyed"}
        for cell in marked:
            shown = page.evaluate(
                "(square) => { const td = [...document.querySelectorAll('td[aria-label]')]"
                ".find(el => el.getAttribute('aria-label').startsWith(square + ', '));"
                " const style = getComputedStyle(td);"
                " return [style.backgroundColor, style.boxShadow]; }",
                cell["square"],
            )
            assert shown[0] == _rgb(square_colour(cell["style"])), cell
            assert "inset" in shown[1], cell


def _rgb(colour: str) -> str:
    red, green, blue = (int(colour[index : index + 2], 16) for index in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_pre_text_breaks_between_words() -> None:
    """Issue 21, point 1: ``pre`` text wraps at spaces ("withou t" was ``break-all``); only a
    token longer than the line breaks inside."""
    assert "break-all" not in CSS["pre"]
    assert "overflow-wrap:anywhere" in CSS["pre"]


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_screenshot_of_a_mail_per_game_at_390(pages: dict[int, Any], name: str) -> None:
    """Issue 21: a 390 px screenshot of one mail per game, for a person to look at (kept in
    ``docs/screenshots/`` with ``SCREENSHOTS=1``)."""
    page = pages[390]
    page.set_content(mail_html("turn_resolved", Variant(name)), wait_until="load")
    assert_fits(page, f"turn_resolved of {name}")
    screenshot(page, f"mail-{name}-390")


GMAIL_CLIPS_AT = 102_000
LARGEST = ((("board", "large"),), (("size", "16"),))
"""The options of the 16×16 boards (Anti-Grid large, Nelaxtam 16)."""


@pytest.mark.parametrize(
    "variant",
    [variant for variant in VARIANTS if variant.options in LARGEST],
    ids=lambda variant: variant.id,
)
def test_a_digest_of_the_largest_boards_is_not_clipped(variant: Variant) -> None:
    """Issue 21, point 1: the markup that lets a board shrink stays small enough for a digest
    of ``DIGEST_BOARDS`` 16×16 boards to pass under Gmail's 102 kB clip."""
    values = context("digest", variant.name, variant.options, variant.players)
    waiting = values["games"][0]
    games = [{**waiting, "game_id": 17 + index} for index in range(DIGEST_BOARDS)]
    html = render_email("digest", {**values, "games": games}).html
    assert html.count("<table cellpadding") == DIGEST_BOARDS
    assert len(html.encode()) < GMAIL_CLIPS_AT


@pytest.mark.parametrize("locale", LANGUAGES)
def test_screenshot_of_a_mail_per_language_at_390(pages: dict[int, Any], locale: str) -> None:
    """Issue 24: one game mail in each language at 390 px still fits the screen (longer
    words, other scripts); ``SCREENSHOTS=1`` keeps ``docs/screenshots/mail-<lang>-390.png``."""
    page = pages[390]
    values = {**context("your_turn", "epaminondas"), "locale": locale}
    view, play = values["view"], scenario("epaminondas")
    for state in (play.opening, play.step.state):  # the status as notify words it
        view = {**view, "status": status_in(locale, state, view["viewer"], view["status"])}
    values["view"] = view
    page.set_content(render_email("your_turn", values).html, wait_until="load")
    assert_fits(page, f"your_turn in {locale}")
    assert page.evaluate("document.documentElement.lang") == locale
    screenshot(page, f"mail-{locale}-390")
