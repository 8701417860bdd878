"""The one-click play page without JavaScript (service/play.py): the signed link from a game
mail opens the player's page for that turn, typing previews and plays, sealed orders show as
"sent, sealed", and the link expires with its turn. (Clicking: test_play_in_browser.py.)"""

from __future__ import annotations

import re

from flask import Flask
from sqlalchemy import select

from service.db import Database
from service.models import Outbox
from tests.service.conftest import Client
from tests.service.mails import readable

LINK = re.compile(r"Play in your browser: \S+(/play/[\w.]+)")


def play_link(database: Database, player: Client, game_id: int) -> str:
    """The path of the signed link in the player's newest mail about the game."""
    with database.transaction() as session:
        row = session.scalars(
            select(Outbox)
            .where(Outbox.game_id == game_id, Outbox.player_id == player.id)
            .order_by(Outbox.id.desc())
        ).first()
        assert row is not None
        found = LINK.search(readable(row))
    assert found, "the mail carries no play link"
    return found[1]


def start(alice: Client, bob: Client, name: str, options: dict[str, str]) -> int:
    data = {"game": name, "options": options, "seats": [alice.id, bob.id]}
    return int(alice.ok("POST", "/games", data, status=201)["game"]["id"])


def test_typing_a_move_on_the_signed_page_previews_then_plays_it(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    link = play_link(database, alice, game_id)
    page = web.get(link).get_data(as_text=True)
    assert "you play White" in page and 'data-square="a1"' in page
    assert '<li data-move="a1-a3">a1-a3</li>' in page
    wrong = web.post(link, data={"move": "a1-a8", "do": "play"})
    assert wrong.status_code == 422 and 'id="error"' in wrong.get_data(as_text=True)
    preview = web.post(link, data={"move": "a1-a3", "do": "preview"}).get_data(as_text=True)
    assert (
        "nothing sent yet" in preview and alice.ok("GET", f"/games/{game_id}")["game"]["turn"] == 1
    )
    played = web.post(link, data={"move": "a1-a3", "do": "play"}, follow_redirects=True)
    assert "Your move is played." in played.get_data(as_text=True)
    assert alice.ok("GET", f"/games/{game_id}")["game"]["turn"] == 2
    # The link expires with its turn; Bob's newest mail has his, for turn 2, from his side.
    assert 'id="expired"' in web.get(link).get_data(as_text=True)
    again = web.post(link, data={"move": "b1-b3", "do": "play"})
    assert again.status_code == 409
    theirs = web.get(play_link(database, bob, game_id)).get_data(as_text=True)
    assert "you play Black" in theirs and "turn 2" in theirs
    assert theirs.index('data-square="h1"') < theirs.index('data-square="a8"')  # turned round


def test_sealed_orders_show_as_sent_sealed_until_the_turn_resolves(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    game_id = start(alice, bob, "elasta", {})
    web = app.test_client()
    link = play_link(database, alice, game_id)
    sent = web.post(link, data={"move": "a7 b6 c5 d4 e3 f2 g1 h0", "do": "play"})
    assert sent.status_code == 303
    page = web.get(sent.headers["Location"]).get_data(as_text=True)
    assert "sent, sealed (<code>" in page and 'id="done"' not in page  # said once
    bobs = web.get(play_link(database, bob, game_id)).get_data(as_text=True)
    assert "sent, sealed (" not in bobs and "76543210" not in bobs
    last = web.post(play_link(database, bob, game_id), data={"move": "01234567", "do": "play"})
    resolved = web.get(last.headers["Location"]).get_data(as_text=True)
    assert "the turn has resolved with them" in resolved and 'id="expired"' in resolved
    assert 'id="expired"' in web.get(link).get_data(as_text=True)


def test_a_link_we_did_not_sign_opens_nothing(app: Flask, alice: Client, bob: Client) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    forged = web.get(f"/play/{game_id}.{alice.id}.1.aaaaaaaaaaaaaaaaaaaa")
    assert forged.status_code == 404 and "not one of ours" in forged.get_data(as_text=True)
    assert web.post(f"/play/{game_id}.{alice.id}.1.x", data={"move": "a1-a3"}).status_code == 404
    for odd in ("1.2.3.%C3%A9", "%C2%B2.2.3.abc", "1.2.3.\u00e9\u00e9"):  # non-ASCII: 404, not 500
        assert web.get(f"/play/{odd}").status_code == 404


def test_the_preview_for_black_is_drawn_from_blacks_side_like_the_board(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 4: Black's preview board on the play page is drawn from Black's side,
    as the board above it is (not from White's beside Black's)."""
    for name, options, move in (
        ("epaminondas", {"board": "8x8"}, "a1-a3"),
        ("anti-grid", {"board": "small"}, None),
        ("elasta", {}, "a7 b6 c5 d4 e3 f2 g1 h0"),
    ):
        game_id = start(alice, bob, name, options)
        web = app.test_client()
        if move is not None and name != "elasta":
            web.post(play_link(database, alice, game_id), data={"move": move, "do": "play"})
        link = play_link(database, bob, game_id)
        page = web.get(link).get_data(as_text=True)
        example = re.search(r"e\.g\. <code>([^<]+)</code>", page)
        assert example, page
        shown = web.post(link, data={"move": example[1], "do": "preview"}).get_data(as_text=True)
        board, preview = shown.split('id="preview-board"')
        squares = re.findall(r'data-square="([a-z]+\d+)"', board)
        previewed = re.findall(r'data-square="([a-z]+\d+)"', preview)
        print(name, squares[:3], previewed[:3])
        assert squares and squares[:3] == previewed[:3], (name, squares[:3], previewed[:3])
