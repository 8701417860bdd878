"""The one-click play page without JavaScript (service/play.py): the signed link from a game
mail opens the player's page for that turn, typing previews and plays, sealed orders show as
"sent, sealed", and the link expires with its turn. (Clicking: test_play_in_browser.py.)"""

from __future__ import annotations

import re

from flask import Flask
from sqlalchemy import select

from service.db import Database
from service.models import Outbox, Player
from tests.service.conftest import Client
from tests.service.mails import readable

LINK = re.compile(r"Play in your browser: \S+(/play/[\w.]+)")


def latest_mail(database: Database, player: Client, game_id: int) -> Outbox:
    """The player's newest mail about the game."""
    with database.transaction() as session:
        row = session.scalars(
            select(Outbox)
            .where(Outbox.game_id == game_id, Outbox.player_id == player.id)
            .order_by(Outbox.id.desc())
        ).first()
    assert row is not None
    return row


def play_link(database: Database, player: Client, game_id: int) -> str:
    """The path of the signed link in the player's newest mail about the game."""
    found = LINK.search(readable(latest_mail(database, player, game_id)))
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
    assert "Your move for turn 1 is played." in played.get_data(as_text=True)
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
    assert "the turn has resolved with them" in resolved and 'id="expired"' not in resolved
    assert 'id="expired"' in web.get(link).get_data(as_text=True)


def test_a_link_we_did_not_sign_opens_nothing(app: Flask, alice: Client, bob: Client) -> None:
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    web = app.test_client()
    forged = web.get(f"/play/{game_id}.{alice.id}.1.aaaaaaaaaaaaaaaaaaaa")
    assert forged.status_code == 404 and "not one of ours" in forged.get_data(as_text=True)
    assert web.post(f"/play/{game_id}.{alice.id}.1.x", data={"move": "a1-a3"}).status_code == 404
    for odd in ("1.2.3.%C3%A9", "%C2%B2.2.3.abc", "1.2.3.\u00e9\u00e9"):  # non-ASCII: 404, not 500
        assert web.get(f"/play/{odd}").status_code == 404


def notice(html: str) -> str:
    """The text of the page's notice after Play (``#done``), tags dropped."""
    found = re.search(r'<p class="notice" role="status" id="done">(.*?)</p>', html, re.S)
    assert found, "no notice after Play"
    return re.sub(r"<[^>]+>", "", found[1])


def test_after_play_the_page_says_what_happened_and_what_comes_next(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 6: after Play the page no longer says "Your move is played." and under
    it "This link was for turn 1, which is over" (which read as an error): one notice says
    what happened and what comes next; an old link opened later still says it is over."""
    game_id = start(alice, bob, "countdown", {"pile": "3"})
    web = app.test_client()
    link = play_link(database, alice, game_id)
    played = web.post(link, data={"move": "take 2", "do": "play"}, follow_redirects=True)
    html = played.get_data(as_text=True)
    assert 'id="expired"' not in html and "which is over" not in html
    assert notice(html) == (
        "Your move for turn 1 is played. Next, Bob (Player 2) plays turn 2; we mail you when "
        "it is your turn, with a new link."
    )
    last = play_link(database, bob, game_id)
    over = web.post(last, data={"move": "take 1", "do": "play"}, follow_redirects=True)
    html = over.get_data(as_text=True)
    assert "which is over" not in html
    assert notice(html).startswith("Your move for turn 2 is played. Game over: ")
    later = web.get(link).get_data(as_text=True)  # the old link, opened again: over, calmly
    assert 'id="done"' not in later and "This link was for turn 1, which is over" in later


def test_sealed_orders_sent_from_the_play_page_get_the_receipt_a_mailed_order_gets(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 6: orders sent on the play page (opened from the link in a mail the
    service sent) are answered with the same ``orders_received`` mail as orders sent by mail:
    it names the orders as read and the receipt the page shows; replacing them sends another;
    once everyone's orders are in, the page says the turn resolved and what comes next."""
    game_id = start(alice, bob, "elasta", {})
    web = app.test_client()
    link = play_link(database, alice, game_id)
    for orders, parsed in (("a7 b6 c5 d4 e3 f2 g1 h0", "76543210"), ("01234567", "01234567")):
        sent = web.post(link, data={"move": orders, "do": "play"}, follow_redirects=True)
        page = sent.get_data(as_text=True)
        shown = re.search(r'Receipt: <code class="hash">([0-9a-f]+)</code>', page)
        assert shown, page
        with database.transaction() as session:
            row = session.scalars(
                select(Outbox)
                .where(Outbox.player_id == alice.id, Outbox.game_id == game_id)
                .order_by(Outbox.id.desc())
            ).first()
            assert row is not None and row.kind == "orders_received"
            mail = readable(row)
        assert "We have your sealed orders for turn 1 of Elasta" in mail
        assert parsed in mail and f"Receipt: {shown[1]}" in mail.replace("\n  ", "")
    with database.transaction() as session:
        receipts = session.scalars(
            select(Outbox).where(Outbox.kind == "orders_received", Outbox.game_id == game_id)
        ).all()
    assert [r.player_id for r in receipts] == [alice.id, alice.id]  # Bob hears nothing of them
    bobs = play_link(database, bob, game_id)
    done = web.post(bobs, data={"move": "a0 b1 c2 d3 e4 f5 g6 h7", "do": "play"})
    html = web.get(done.headers["Location"]).get_data(as_text=True)
    assert notice(html) == (
        "Your orders for turn 1 are in, and the turn has resolved with them. Turn 2 is open, "
        "and it wants your orders: the link for it is in your newest mail about this game."
    )


def test_the_preview_for_black_is_drawn_from_blacks_side_like_the_board(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 4: Black's preview board on the play page is drawn from Black's side,
    as the board above it is (not from White's beside Black's)."""
    for name, options in (("epaminondas", {"board": "8x8"}), ("anti-grid", {"board": "small"})):
        game_id = start(alice, bob, name, options)
        web = app.test_client()
        first = play_link(database, alice, game_id)
        example = re.search(r"e\.g\. <code>([^<]+)</code>", web.get(first).get_data(as_text=True))
        assert example
        web.post(first, data={"move": example[1], "do": "play"})
        link = play_link(database, bob, game_id)
        example = re.search(r"e\.g\. <code>([^<]+)</code>", web.get(link).get_data(as_text=True))
        assert example
        shown = web.post(link, data={"move": example[1], "do": "preview"}).get_data(as_text=True)
        board, preview = shown.split('id="preview-board"')
        squares = re.findall(r'data-square="([a-z]+\d+)"', board)
        previewed = re.findall(r'data-square="([a-z]+\d+)"', preview)
        assert squares == previewed, name  # the same squares in the same places
        top_left = squares[0]  # Black's side: rank 1 on top, file a on the right
        assert top_left[1:] == "1" and top_left[0] != "a", (name, top_left)


def test_the_play_page_turns_the_board_as_the_players_mails_do(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 21, point 4: the board on the play page (and its preview) is drawn from the side
    the player's mails draw it from: Black in Epaminondas turned round, Nelaxtam (no sides on
    the board) never, and nobody's once they turned that off in their mail settings."""
    web = app.test_client()

    def top_left(game_id: int) -> str:
        page = web.get(play_link(database, bob, game_id)).get_data(as_text=True)
        found = re.search(r'data-square="([a-z]+\d+)"', page)
        assert found
        return found[1]

    epaminondas = start(alice, bob, "epaminondas", {"board": "8x8"})
    nelaxtam = start(alice, bob, "nelaxtam", {"size": "8"})
    assert top_left(epaminondas) == "h1" and top_left(nelaxtam) == "a8"
    with database.transaction() as session:
        session.get_one(Player, bob.id).board_flip = False
    assert top_left(epaminondas) == "a8"


def test_the_play_page_names_the_last_move_seats_and_squares_in_the_players_language(
    app: Flask, database: Database, alice: Client, bob: Client
) -> None:
    """Issue 24: Bob, who reads Russian, sees the last move, his seat and every square's
    title in Russian; Alice's English page keeps the engine's English titles."""
    game_id = start(alice, bob, "epaminondas", {"board": "8x8"})
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "a1-a3"})
    link = play_link(database, bob, game_id)
    bob.ok("PATCH", "/players/me", {"language": "ru"})
    page = app.test_client().get(link).get_data(as_text=True)
    assert "Последний ход (ход №1): Белые a1-a3" in page and "Last move" not in page
    assert "Чёрные" in page and "you play Black" not in page
    assert 'title="a3: белый камень' in page and 'title="a8: чёрный камень"' in page
    assert "white stone" not in page and "black stone" not in page
    english = app.test_client().get(play_link(database, alice, game_id)).get_data(as_text=True)
    assert 'title="a3: white stone' in english and "Last move (turn 1): White a1-a3" in english
