"""What a player who only reads mail learns (issue 11), read from the mails the service wrote:
draw offers and declines reach the opponent, the error-reply limit is announced, forfeit and
time warnings, reminder timing, the mover's own copy, boards from the reader's side with the
last move marked, one turn vocabulary."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import select

from service import games, players
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.mail.render import LAST_MOVE_MARK
from service.models import Game, Outbox, Player, Turn
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, mails, make_game, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"


def send(database: Database, sender: str, game_id: int, typed: str) -> InboundMessage:
    raw = reply(latest(database, sender, game_id), sender, typed)
    return inbound(database, gateway.receive(database, raw, "inject").id)


def html_of(mail: EmailMessage) -> str:
    part = mail.get_body(("html",))
    assert isinstance(part, EmailMessage)
    return str(part.get_content())


def parsed(row: Outbox) -> EmailMessage:
    import email
    import email.policy

    message = email.message_from_string(row.body, policy=email.policy.default)
    assert isinstance(message, EmailMessage)
    return message


def kinds(database: Database, address: str) -> list[str]:
    return [row.kind for row in mails(database, address)]


def set_preferences(database: Database, address: str, **values: Any) -> None:
    with database.transaction() as session:
        player = players.by_address(session, address)
        assert player is not None
        players.update(session, player, values)


# -- draw offers, declines, withdrawals, resignations -----------------------------------------


def test_a_draw_offer_with_a_move_reaches_the_opponent_and_a_decline_comes_back(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    row = send(database, ALICE, game_id, "draw\na1-a3")
    assert row.status == "processed", row.result
    assert not mails(database, BOB, "draw_news")  # issue 21, point 5: one mail carries both
    news = mails(database, BOB, "opponent_moved")
    assert len(news) == 1
    assert "Alice (White) offered a draw" in str(parsed(news[0])["Subject"])
    moved = text_of(latest(database, BOB, game_id))
    assert "White a1-a3" in moved
    assert "Draw offer: Alice (White) offers a draw" in moved  # the offer outlives the move
    status = send(database, BOB, game_id, "status")
    assert status.status == "processed"
    assert 'Reply "accept" (or "draw") to agree' in text_of(latest(database, BOB, game_id))
    send(database, BOB, game_id, "decline")
    declined = mails(database, ALICE, "draw_news")
    assert "Bob (Black) declined the draw offer" in str(parsed(declined[-1])["Subject"])
    assert "No draw offer is open now" in text_of(parsed(declined[-1]))


def test_an_offer_lapses_when_the_opponent_moves_and_can_be_withdrawn(database: Database) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3\ndraw")  # offered after the move, in Bob's turn
    send(database, BOB, game_id, "a11-a10")
    with database.transaction() as session:
        assert session.get_one(Game, game_id).draw_offers == []
    assert "Draw offer" not in text_of(latest(database, ALICE, game_id))
    send(database, ALICE, game_id, "draw")
    send(database, ALICE, game_id, "draw off")
    news = [str(parsed(row)["Subject"]) for row in mails(database, BOB, "draw_news")]
    assert news[-1].endswith("Alice (White) withdrew their draw offer")


def test_a_resignation_by_mail_is_confirmed_and_the_opponent_told(database: Database) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "resign")
    for address in (ALICE, BOB):
        over = mails(database, address, "game_over")
        assert len(over) == 1
        assert "White resigned" in text_of(parsed(over[0]))


def test_the_api_game_view_shows_open_offers(
    alice: Client, bob: Client, database: Database
) -> None:
    data = {"game": "epaminondas", "seats": [alice.id, bob.id]}
    game = alice.ok("POST", "/games", data, status=201)["game"]
    alice.ok("POST", f"/games/{game['id']}/draw/offer")
    seen = bob.ok("GET", f"/games/{game['id']}")["game"]
    assert seen["draw_offers"] == [0]
    news = mails(database, BOB, "draw_news")
    assert len(news) == 1 and "offered a draw" in str(parsed(news[0])["Subject"])
    alice.ok("POST", f"/games/{game['id']}/draw/withdraw")
    assert bob.ok("GET", f"/games/{game['id']}")["game"]["draw_offers"] == []


# -- the error-reply limit is announced; moves are never limited --------------------------------


def test_the_last_error_reply_allowed_says_so_and_moves_still_play(database: Database) -> None:
    limit = database.settings.error_replies_per_hour
    game_id, _, _ = make_game(database, game="epaminondas")
    for attempt in range(limit + 2):
        send(database, ALICE, game_id, f"z{attempt + 1}-z9")
    errors = [text_of(parsed(row)) for row in mails(database, ALICE, "error_reply")]
    assert len(errors) == limit
    assert all("one mistake too many" not in text for text in errors[:-1])
    last = " ".join(errors[-1].split())
    assert "this is the last answer to a mistake we send you until" in last
    assert 'Reply "help"' in last and f"/games/{game_id}" in last
    row = send(database, ALICE, game_id, "a1-a3")
    assert row.status == "processed", row.result
    receipt = mails(database, ALICE, "move_receipt")
    assert len(receipt) == 1 and "You played a1-a3" in str(parsed(receipt[0])["Subject"])


# -- forfeit and time warnings, reminders ------------------------------------------------------


def sealed_game(database: Database, forfeit_after: int, days: float = 2) -> int:
    game_id, _, _ = make_game(database, game="elasta")
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        game.time_control = {**game.time_control, "forfeit_after": forfeit_after, "days": days}
    return game_id


def deadline_of(database: Database, game_id: int) -> Any:
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == game.turn))
        assert turn is not None and turn.deadline is not None
        return turn.deadline


def test_every_missed_deadline_mail_counts_down_to_the_forfeit(database: Database) -> None:
    game_id = sealed_game(database, forfeit_after=2)
    send(database, BOB, game_id, "01234567")
    with database.transaction() as session:
        games.resolve_turn(session, game_id, 1, deadline_of(database, game_id) + timedelta(1))
    missed = mails(database, ALICE, "default_orders")
    assert len(missed) == 1
    text = " ".join(text_of(parsed(missed[0])).split())
    assert "You have missed 1 deadline in a row. Miss the next deadline and you forfeit" in text
    with database.transaction() as session:
        games.resolve_turn(session, game_id, 2, deadline_of(database, game_id) + timedelta(1))
    over = mails(database, ALICE, "game_over")
    assert "White forfeited after 2 missed turns" in text_of(parsed(over[0]))


def test_reminders_say_what_a_miss_costs(database: Database) -> None:
    game_id = sealed_game(database, forfeit_after=1)
    deadline = deadline_of(database, game_id)
    with database.transaction() as session:
        sent = games.remind(session, game_id, 1, [24, 2], deadline - timedelta(hours=20))
    assert sent == 2
    text = " ".join(text_of(parsed(mails(database, ALICE, "reminder")[0])).split())
    assert "due in about 20 hours" in text
    assert "Miss the next deadline and you forfeit the game" in text
    epa, _, _ = make_game(database, game="epaminondas")
    with database.transaction() as session:
        game = session.get_one(Game, epa)
        game.time_control = {**game.time_control, "bank": {"initial_days": 3}}
    with database.transaction() as session:
        games.remind(session, epa, 1, [2], deadline_of(database, epa) - timedelta(minutes=50))
    text = " ".join(text_of(latest(database, ALICE, epa)).split())
    assert "Your time bank left for this move: 50 minutes" in text
    assert "you lose the game on time" in text


@pytest.mark.parametrize(
    ("days", "before_deadline", "expected"),
    [
        (1.0, timedelta(hours=24), 0),  # one-day turns: the turn opened at the 24 h mark
        (1.0, timedelta(hours=23, minutes=59), 0),
        (1.5, timedelta(hours=24), 2),  # opened 36 h before the deadline: well before
        (1.5 - 1 / 1440, timedelta(hours=24), 0),  # one minute short of it
        (2 / 24, timedelta(hours=2), 0),  # two-hour turns never get the 2 h reminder
    ],
)
def test_reminders_only_when_the_turn_opened_well_before_the_offset(
    database: Database, days: float, before_deadline: timedelta, expected: int
) -> None:
    game_id = sealed_game(database, forfeit_after=3)
    with database.transaction() as session:
        turn = session.scalar(select(Turn).where(Turn.game_id == game_id, Turn.number == 1))
        assert turn is not None and turn.deadline is not None
        turn.deadline = turn.started_at + timedelta(days=days)
    deadline = deadline_of(database, game_id)
    offset = before_deadline.total_seconds() / 3600
    hours = [24.0] if offset > 2 else [2.0]
    with database.transaction() as session:
        sent = games.remind(session, game_id, 1, hours, deadline - before_deadline)
    assert sent == expected
    assert len(mails(database, ALICE, "reminder")) == (expected > 0)


def test_a_late_reminder_says_the_real_time_left(database: Database) -> None:
    game_id = sealed_game(database, forfeit_after=3)
    deadline = deadline_of(database, game_id)
    with database.transaction() as session:
        games.remind(session, game_id, 1, [2], deadline - timedelta(minutes=2))
    subject = str(parsed(mails(database, ALICE, "reminder")[0])["Subject"])
    assert subject.endswith("turn 1 is due in about 2 minutes")


# -- the mover's own copy ----------------------------------------------------------------------


@pytest.mark.parametrize(("choice", "kind"), [("short", "move_receipt"), ("full", "turn_resolved")])
def test_the_movers_own_copy_follows_the_preference(
    database: Database, choice: str, kind: str
) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    set_preferences(database, ALICE, own_copy=choice)
    before = len(mails(database, ALICE))
    assert send(database, ALICE, game_id, "a1-a3").status == "processed"
    after = mails(database, ALICE)[before:]
    assert [row.kind for row in after] == [kind]
    if choice == "short":
        body = text_of(parsed(after[0])).split("\n--\n")[0]
        lines = [line for line in body.splitlines() if line.strip() and "Reply ABOVE" not in line]
        played = f"Played: a1-a3 in Epaminondas #{game_id}, turn 1; now Bob (Black) to move."
        # Answering a mail, the one line comes with the report of what was read (issue 13).
        assert lines[0] == "What we did with your mail:" and lines[-1] == played, lines
        assert "'a1-a3': played a1-a3" in lines


def test_no_own_copy_by_mail_nor_api(alice: Client, bob: Client, database: Database) -> None:
    alice.ok("PATCH", "/players/me", {"own_copy": "none"})
    assert alice.ok("GET", "/players/me")["player"]["own_copy"] == "none"
    bad = alice.request("PATCH", "/players/me", json={"own_copy": "some"})
    assert bad.status_code == 400 and "own_copy must be one of" in bad.get_data(as_text=True)
    data = {"game": "epaminondas", "seats": [alice.id, bob.id]}
    game = alice.ok("POST", "/games", data, status=201)
    before = kinds(database, ALICE)
    alice.ok("POST", f"/games/{game['game']['id']}/moves", {"turn": 1, "text": "a1-a3"})
    assert kinds(database, ALICE) == before
    assert send(database, BOB, game["game"]["id"], "a11-a10").status == "processed"
    assert send(database, ALICE, game["game"]["id"], "b1-b3").status == "processed"
    assert kinds(database, ALICE) == [*before, "opponent_moved"]


def test_the_mail_settings_page_saves_the_board_and_copy_preferences(
    app: Flask, database: Database
) -> None:
    from service.mail.links import settings_token

    make_game(database, game="epaminondas")
    with database.transaction() as session:
        player = players.by_address(session, BOB)
        assert player is not None
        token = settings_token(database.settings.secret(), player.id)
    client = app.test_client()
    page = client.get(f"/mail/{token}").get_data(as_text=True)
    assert 'name="own_copy" value="short" checked' in page
    assert 'name="board_flip" checked' in page
    form = {"notify": "each", "own_copy": "full"}  # board_flip unticked
    assert client.post(f"/mail/{token}", data=form).status_code == 200
    with database.transaction() as session:
        player = session.scalar(select(Player).where(Player.name == "Bob"))
        assert player is not None and (player.own_copy, player.board_flip) == ("full", False)


# -- boards from the reader's side, the last move marked ---------------------------------------


def test_the_second_seat_sees_the_board_turned_with_the_last_move_marked(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, game="epaminondas")
    send(database, ALICE, game_id, "a1-a3")
    bob = latest(database, BOB, game_id)
    text = text_of(bob)
    lines = text.splitlines()
    header = next(line for line in lines if line.strip().startswith(("a b", "n m")))
    assert header.split()[0] == "n"  # Black sees file n on the left
    assert "Last move (turn 1): White a1-a3 (marked < and ^)" in text
    rank1 = next(line for line in lines if line.startswith("  1 |"))
    assert rank1.endswith("<") and rank1.index("| 1") < rank1.index("<")
    assert max(len(line) for line in lines) <= 80
    ranks = [line.split()[0] for line in lines if line[:4].strip().isdigit() and "|" in line]
    assert ranks[0] == "1" and ranks[-1] == "12"
    html = html_of(bob)
    assert html.count(LAST_MOVE_MARK) == 2
    assert 'aria-label="a1, empty, last move"' in html
    assert 'aria-label="a3, white stone, last move"' in html
    alice = text_of(parsed(mails(database, ALICE, "game_started")[0]))
    assert any(line.strip().startswith("a b c") for line in alice.splitlines())
    set_preferences(database, BOB, board_flip=False)
    send(database, BOB, game_id, "board")
    unflipped = text_of(latest(database, BOB, game_id))
    assert any(line.strip().startswith("a b c") for line in unflipped.splitlines())


def test_nelaxtam_is_not_turned_and_says_one_turn_number(database: Database) -> None:
    game_id, _, _ = make_game(database, game="nelaxtam")
    send(database, ALICE, game_id, "1:a1 2:c1 3:e1 4:a3 5:c3")
    send(database, BOB, game_id, "1:b1 2:d1 3:f1 4:b3 5:d3")
    mail = latest(database, BOB, game_id)
    text = text_of(mail)
    assert "Action turn" not in text and "Turn 2: orders due from O and X" in text
    assert "Turn 1 resolved" in str(mail["Subject"])
    assert any(line.strip().startswith("a b c") for line in text.splitlines())
    with database.transaction() as session:
        game = session.get_one(Game, game_id)
        assert game.turn == 2
        assert "Turn 2" in games.summary(session, game, None)["status_line"]
