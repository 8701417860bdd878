"""Mails that say the right thing, and one mail per player for one reply (issue 21, points 4
and 5), walked as a player does: a mail the service sent, answered through the gateway, and the
next mails parsed back from the outbox."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import func, select

import engine
from engine import registry
from service import players
from service.db import Database
from service.mail.render import CSS
from service.models import Outbox
from service.wording import options_in_words
from tests.browser import browser, in_view_horizontally, open_html  # noqa: F401
from tests.service.conftest import Client
from tests.service.gateway_kit import latest, mails, make_game, text_of
from tests.service.test_leagues_api import games_of, outbox, running
from tests.service.test_player_experience import html_of, parsed, send, set_preferences

ALICE, BOB = "alice@example.org", "bob@example.org"


def mark(database: Database) -> int:
    """The last outbox row so far: the mails after it are what the next reply caused."""
    with database.transaction() as session:
        return session.scalar(select(func.max(Outbox.id))) or 0


def since(database: Database, after: int, address: str) -> list[Outbox]:
    return [row for row in mails(database, address) if row.id > after]


def subject(row: Outbox) -> str:
    return str(parsed(row)["Subject"])


def raw_headers(row: Outbox) -> str:
    return row.body.split("\n\n", 1)[0]


# -- point 5: one reply, one mail to each player ---------------------------------------------


def test_a_move_a_draw_offer_and_an_if_line_give_one_mail_to_each_player(
    database: Database,
) -> None:
    """Issue 21, point 5: a reply with a move, ``draw`` and an ``if`` line gives its author
    one answer saying all three were done, and the opponent one mail with the move and the
    draw offer; the conditional move it set, played later, again comes in one mail each."""
    game_id, _, _ = make_game(database, game="epaminondas")
    before = mark(database)
    sent = send(database, ALICE, game_id, "a1-a3\ndraw\nif a11-a10 then b1-b3")
    assert sent.status == "processed", sent.result

    (answer,) = since(database, before, ALICE)
    mine = parsed(answer)
    assert mine["In-Reply-To"] == sent.message_id  # it answers the reply
    said = text_of(mine)
    assert "'a1-a3': played a1-a3" in said
    assert "'draw': draw offered" in said
    assert "conditional moves set" in said and "if a11-a10 then b1-b3" in said
    assert subject(answer).endswith(
        "You played a1-a3 (turn 1); draw offered; conditional moves set"
    )

    (news,) = since(database, before, BOB)
    assert news.kind == "opponent_moved"
    assert subject(news).endswith("Alice (White) played a1-a3; Alice (White) offered a draw")
    told = text_of(parsed(news))
    assert "- Alice (White) offered a draw" in told
    assert "Draw offer: Alice (White) offers a draw" in told
    assert "Alice (White) played a1-a3" in told

    # Bob's move sets off Alice's conditional answer: one mail each again.
    before = mark(database)
    assert send(database, BOB, game_id, "a11-a10").status == "processed"
    (bobs,) = since(database, before, BOB)
    bob_subject = subject(bobs)
    assert "You played a11-a10" in bob_subject and "Alice (White) played b1-b3" in bob_subject
    assert "'a11-a10': played a11-a10" in text_of(parsed(bobs))
    assert "Your turn, Bob" in text_of(parsed(bobs))
    (alices,) = since(database, before, ALICE)
    alice_subject = subject(alices)
    assert "Bob (Black) played a11-a10" in alice_subject
    assert "Your conditional move b1-b3 was played" in alice_subject
    assert "Turn" not in alice_subject.partition("] ")[2].split(" (turn")[0]


def test_a_draw_offer_in_a_later_mail_comes_in_a_mail_of_its_own(database: Database) -> None:
    """Issue 21, point 5: gathering one reply's mails does not swallow a draw offer sent
    alone later: the opponent hears of it at once, its author gets a receipt titled with it."""
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3")
    before = mark(database)
    assert send(database, ALICE, game_id, "draw").status == "processed"
    (news,) = since(database, before, BOB)
    assert news.kind == "draw_news"
    assert subject(news).endswith("Alice (White) offered a draw")
    (receipt,) = since(database, before, ALICE)
    assert receipt.kind == "reply_receipt"
    assert subject(receipt).endswith("Draw offered (Black to move)")


def test_a_reply_with_a_move_and_a_failed_line_gets_one_error_reply(database: Database) -> None:
    """Issue 21, point 5, when part of a reply fails: its author gets one answer, the error
    reply, which says the rest was done and carries the news of the move; the opponent one
    mail."""
    game_id, _, _ = make_game(database, game="epaminondas")
    before = mark(database)
    sent = send(database, ALICE, game_id, "a1-a3\ndecline")
    assert sent.status == "processed", sent.result
    (answer,) = since(database, before, ALICE)
    assert answer.kind == "error_reply"
    text = text_of(parsed(answer))
    assert "- You played a1-a3 (turn 1)" in text
    assert "'a1-a3': played a1-a3" in text
    assert "The rest was done" in " ".join(text.split())
    (news,) = since(database, before, BOB)
    assert news.kind == "opponent_moved"


def test_a_digest_reader_still_hears_of_a_draw_offer_at_once(database: Database) -> None:
    """Issue 21, point 5, for a player who chose the daily digest: the move waits for the
    digest, the draw offer made in the same reply is not held with it."""
    game_id, _, _ = make_game(database, game="epaminondas")
    set_preferences(database, BOB, notify="digest")
    before = mark(database)
    send(database, ALICE, game_id, "a1-a3\ndraw")
    kinds = [row.kind for row in since(database, before, BOB)]
    assert kinds == ["held:opponent_moved", "draw_news"]


# -- point 4: mails that said the wrong thing ------------------------------------------------


def test_a_decline_is_confirmed_as_a_decline_not_as_help(database: Database) -> None:
    """Issue 21, point 4: ``decline`` was confirmed in a mail titled "Help: the commands you
    can mail us"; its answer now says what was done."""
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3")
    send(database, BOB, game_id, "draw")
    before = mark(database)
    assert send(database, ALICE, game_id, "decline").status == "processed"
    (answer,) = since(database, before, ALICE)
    assert answer.kind == "reply_receipt"
    title = subject(answer)
    assert "Help" not in title and title.endswith("Draw offer declined (Black to move)")
    text = text_of(parsed(answer))
    assert "'decline': draw offer declined" in text
    assert "We will mail you when it is your turn." in text
    (news,) = since(database, before, BOB)
    assert subject(news).endswith("Alice (White) declined the draw offer")


def test_an_alternating_game_has_moves_not_resolved_turns(database: Database) -> None:
    """Issue 21, point 4: an Epaminondas mail was titled "Turn 4 resolved: White to move"."""
    game_id, _, _ = make_game(database, game="epaminondas")
    set_preferences(database, ALICE, own_copy="full")
    before = mark(database)
    send(database, ALICE, game_id, "a1-a3")
    (own,) = since(database, before, ALICE)
    assert own.kind == "turn_resolved"
    assert subject(own).endswith("You played a1-a3 (turn 1): Black to move")
    assert "resolved" not in subject(own) and "resolved" not in text_of(parsed(own))


def test_sealed_games_have_nobody_playing_first(database: Database) -> None:
    """Issue 21, point 4: "You play first." stood in Elasta and Nelaxtam, where every player
    sends sealed orders at once; Epaminondas's first player still reads it."""
    for game in ("elasta", "nelaxtam"):
        game_id, _, _ = make_game(database, game=game)
        for address in (ALICE, BOB):
            started = text_of(latest(database, address, game_id))
            assert "You play first" not in started
            assert "nobody plays first" in " ".join(started.split())
    game_id, _, _ = make_game(database, game="epaminondas")
    assert "You play first" in text_of(latest(database, ALICE, game_id))


def test_the_game_over_mail_has_nobody_to_move(database: Database) -> None:
    """Issue 21, point 4: the game-over mail after a resignation said "Black to move"."""
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3")
    send(database, BOB, game_id, "resign")
    for address in (ALICE, BOB):
        (over,) = mails(database, address, "game_over")
        text = text_of(parsed(over))
        assert "to move" not in text
        assert "Game over: 1-0 (Black resigned)" in text
        assert "to move" not in html_of(parsed(over))


def test_an_error_reply_lists_the_valid_moves_once(database: Database) -> None:
    """Issue 21, point 4: "Valid here: ..." stood twice in one error reply (the engine's
    message, then the mail's own list)."""
    game_id, _, _ = make_game(database, game="epaminondas")
    before = mark(database)
    assert send(database, ALICE, game_id, "a1a3").status == "rejected"
    (error,) = since(database, before, ALICE)
    assert error.kind == "error_reply"
    assert text_of(parsed(error)).count("Valid here") == 1
    assert html_of(parsed(error)).count("Valid here") == 1


def test_subjects_fold_with_text_on_their_first_line_and_the_sender_has_a_name(
    database: Database,
) -> None:
    """Issue 21, point 4: subjects were folded with an empty first line, and ``From`` was
    ``pbem@pbem.localhost`` with no display name."""
    game_id, _, _ = make_game(database, game="epaminondas")
    long_names = {
        ALICE: "Alexandra-Konstantina Wetherington-Papadopoulou",
        BOB: "Zoë Ångström-Łukasiewicz of the Northern Marches",
    }
    for address, name in long_names.items():
        with database.transaction() as session:
            player = players.by_address(session, address)
            assert player is not None
            players.update(session, player, {"name": name})
    send(database, ALICE, game_id, "a1-a3\ndraw")
    send(database, BOB, game_id, "a11-a10")
    rows = mails(database, ALICE) + mails(database, BOB)
    folded = 0
    for row in rows:
        headers = raw_headers(row)
        line = re.search(r"^Subject:(.*)$", headers, re.MULTILINE)
        assert line is not None
        assert line.group(1).strip(), f"empty first subject line in {row.kind}"
        value = headers[line.start() :].split("\n")
        folded += len(value) > 1 and value[1].startswith(" ")
        assert all(len(part) <= 78 for part in headers.split("\n") if "Subject" in part)
        message = parsed(row)
        assert str(message["Subject"]) == " ".join(str(message["Subject"]).split())
        assert message["From"].addresses[0].display_name == "pbem"
        assert message["From"].addresses[0].addr_spec == "pbem@pbem.localhost"
    assert folded, "no subject was long enough to fold: the test proves nothing"
    assert any("Zoë Ångström-Łukasiewicz" in subject(row) for row in mails(database, ALICE))


def test_options_read_as_words_in_mails_and_on_the_game_page(
    database: Database, anonymous: Client
) -> None:
    """Issue 21, point 4: mails showed raw option keys (``Options: anti_copy=on,
    board=14x12``); mails and the public game page now say them in words, alike."""
    game_id, _, _ = make_game(database, game="epaminondas", options={"board": "8x8"})
    started = text_of(latest(database, ALICE, game_id))
    assert "Options: Board 8×8, anti-copy rule on." in started
    assert "anti_copy" not in started and "board=" not in started
    assert "Board 8×8, anti-copy rule on" in html_of(latest(database, ALICE, game_id))
    page = anonymous.client.get(f"/games/{game_id}").get_data(as_text=True)
    assert "Options: Board 8×8, anti-copy rule on." in page
    assert "Options: anti_copy" not in page  # (the game record keeps its machine tags)


def test_the_league_page_says_its_options_in_words(admin: Client, anonymous: Client) -> None:
    """Issue 21, point 4: the public league page read its options as raw keys too."""
    body = {"name": "Small boards", "game": "epaminondas", "options": {"board": "8x8"}}
    league = admin.ok("POST", "/leagues", body, 201)["league"]
    page = anonymous.client.get(f"/leagues/{league['id']}").get_data(as_text=True)
    assert "(Board 8×8, anti-copy rule on)" in page
    assert "board=" not in page and "anti_copy" not in page


def test_the_play_link_is_the_big_button_and_the_game_page_a_small_link(
    database: Database,
) -> None:
    """Issue 21, point 4: a your-turn mail had a big button to the read-only game page while
    the one-click play link was small in the footer."""
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3")
    html = html_of(latest(database, BOB, game_id))
    buttons = re.findall(rf'<a href="([^"]+)" style="{re.escape(CSS["button"])}">([^<]+)</a>', html)
    assert len(buttons) == 1
    href, label = buttons[0]
    assert "/play/" in href and label == "Play your move in the browser"
    assert re.search(r'<a href="[^"]+/games/\d+"[^>]*>public game page</a>', html)


def test_the_standings_mail_says_the_next_round_has_started(
    database: Database, admin: Client
) -> None:
    """Issue 21, point 4: "The next round starts when it is due" was mailed with the next
    round's games already started; the standings mail now says it starts now, or when."""
    data, people = running(admin)
    by_id = {p.id: p for p in people}
    for played in games_of(data, 1):
        game = admin.ok("GET", f"/games/{played['game']}")["game"]
        by_id[game["seats"][1]["player"]["id"]].ok("POST", f"/games/{played['game']}/resign")
    assert admin.ok("GET", f"/leagues/{data['id']}")["league"]["round"] == 2
    standings = outbox(database, "league_standings")
    assert len(standings) == 4
    for row in standings:
        text = " ".join(text_of(parsed(row)).split())
        assert "when it is due" not in text
        assert "The next round starts now" in text


def test_the_standings_mail_of_a_scheduled_league_says_when_the_next_round_starts(
    database: Database, admin: Client
) -> None:
    """Issue 21, point 4: a league with ``round_days`` mails when its next round starts."""
    scheduled, people = running(admin, round_days=7)
    by_id = {p.id: p for p in people}
    before = mark(database)
    for played in games_of(scheduled, 1):
        game = admin.ok("GET", f"/games/{played['game']}")["game"]
        by_id[game["seats"][1]["player"]["id"]].ok("POST", f"/games/{played['game']}/resign")
    later = [row for row in outbox(database, "league_standings") if row.id > before]
    assert later
    for row in later:
        text = " ".join(text_of(parsed(row)).split())
        assert re.search(r"The next round starts on \w{3} \d+ \w{3} \d{4}, \d\d:\d\d", text)


def test_the_merged_mail_reads_in_a_phone_browser(
    database: Database,
    browser: Any,  # noqa: F811  (the fixture imported above)
) -> None:
    """Issue 21, points 4 and 5, as the opponent's phone shows them: one mail with the move
    and the draw offer, and the play link as the one big button, in view at 390 px."""
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3\ndraw")
    page = open_html(browser, html_of(latest(database, BOB, game_id)), 390)
    try:
        shown = " ".join(page.inner_text("body").split())
        assert "Also in this mail: Alice (White) offered a draw" in shown
        assert "Alice (White) played a1-a3" in shown
        assert "Draw offer: Alice (White) offers a draw" in shown
        button = page.get_by_role("link", name="Play your move in the browser")
        assert button.is_visible()
        assert in_view_horizontally(page, f'a[style="{CSS["button"]}"]') == []
    finally:
        page.close()


def test_every_game_says_its_options_in_words() -> None:
    """Issue 21, point 4: no game's options read as raw keys, whatever their values."""
    for name in engine.names():
        for key, option in registry.game_class(name).OPTIONS.items():
            for value in option.choices:
                words = options_in_words(name, {key: value})
                assert words and "_" not in words and "=" not in words, (name, key, words)
                assert words[0].isupper() or words[0].isdigit(), words
