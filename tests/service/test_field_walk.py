"""Issue 21, walked as players do, for every game: the mail the service sent is answered from a
phone-style client with the move that mail itself suggests, the reply goes through the gateway
into the game, and the next mail each player gets is parsed back from the outbox and read as
they would read it: the text part gives the last move and the position in words before the
grid and links the game's rules; the HTML part, in headless Chromium at 320 and 390 px, is no
wider than the screen, shows the last move's squares without a sideways scroll, and axe-core
finds nothing serious in it."""

from __future__ import annotations

import re
from email.message import EmailMessage
from typing import Any

import pytest

from service import games
from service.db import Database
from service.mail import gateway
from service.models import Game
from tests.browser import (
    PHONE_WIDTHS,
    assert_fits,
    axe_violations,
    browser,  # noqa: F401  (a fixture)
    in_view_horizontally,
    open_html,
)
from tests.service.gateway_kit import SHAPES, inbound, latest, mails, make_game, reply, text_of

PLAYERS = ("alice@example.org", "bob@example.org")
GAMES = ("epaminondas", "elasta", "nelaxtam", "anti-grid", "elemento")
LAST_MOVE = '[data-last-move="true"]'
EXAMPLE = re.compile(r"^For example: (.+)$", re.MULTILINE)


def html_of(mail: EmailMessage) -> str:
    part = mail.get_body(("html",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def suggested_move(mail: EmailMessage, pick: int) -> str | None:
    """An example the mail offers its reader, when it asks them to move (the ``pick``-th of
    its first line, so that sealed orders differ between the seats and something moves)."""
    found = EXAMPLE.search(text_of(mail))
    if not found:
        return None
    examples = [example.strip() for example in found.group(1).split(", ") if example.strip()]
    return examples[pick % len(examples)]


def turn_of(database: Database, game_id: int) -> int:
    with database.transaction() as session:
        return session.get_one(Game, game_id).turn


def seats_to_act(database: Database, game_id: int) -> list[int]:
    with database.transaction() as session:
        state = games.state_of(session.get_one(Game, game_id))
        return list(state.to_act)


@pytest.mark.parametrize("game", GAMES)
def test_a_turn_answered_by_mail_reads_well_on_a_phone(
    database: Database,
    browser: Any,  # noqa: F811  (the fixture imported above)
    game: str,
) -> None:
    game_id, _, _ = make_game(database, game=game)
    opened = turn_of(database, game_id)
    for index, seat in enumerate(seats_to_act(database, game_id)):
        address = PLAYERS[seat]
        sent = latest(database, address, game_id)
        move = suggested_move(sent, index)
        assert move, f"{game}: the mail to seat {seat} suggests no move:\n{text_of(sent)}"
        shape = SHAPES[(index + 1) % len(SHAPES)]
        raw = reply(sent, address, move, shape=shape)
        stored = inbound(database, gateway.receive(database, raw, "inject").id)
        assert stored.status == "processed", (game, shape, move, stored.status)
    assert turn_of(database, game_id) > opened, f"{game}: the turn did not move on"

    boards = 0
    for address in PLAYERS:
        row = mails(database, address)[-1]
        mail = latest(database, address, game_id)
        text = text_of(mail)
        assert f"/rules/{game}" in text, "the mail links its game's rules"
        has_board = row.kind != "move_receipt"  # the mover's one-line receipt draws none
        if has_board:
            boards += 1
            assert "Last move" in text, text
            grid = text.find("+---") if "+---" in text else text.find(" a b ")
            assert grid == -1 or text.index("Last move") < grid, "words before the grid"
        for width in PHONE_WIDTHS:
            page = open_html(browser, html_of(mail), width)
            try:
                assert_fits(page, f"{game} {row.kind} to {address} at {width}")
                if has_board:
                    assert page.locator(LAST_MOVE).count(), "the last move is marked"
                    assert in_view_horizontally(page, LAST_MOVE) == []
                violations = axe_violations(page)
                assert violations == [], [str(v) for v in violations]
            finally:
                page.close()
    assert boards, "the other player's mail shows the board"
