"""Replies to the service's own mails, through the real gateway into real games: the game
decides what is a move, and every answer says what was read and what was ignored."""

from __future__ import annotations

import random
from email.message import EmailMessage

from service import games
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Game
from tests.service.gateway_kit import game_row, inbound, latest, mails, make_game, reply, text_of

ALICE, BOB = "alice@example.org", "bob@example.org"


def send(database: Database, raw: bytes) -> InboundMessage:
    return inbound(database, gateway.receive(database, raw, "inject").id)


def unlisted_moves(database: Database, game_id: int, count: int) -> list[str]:
    """Legal moves of the player to act that the mail does not show as examples."""
    with database.transaction() as session:
        state = games.state_of(session.get_one(Game, game_id))
    seat = state.to_act[0]
    rng, found = random.Random(game_id), []
    while len(found) < count:
        move = state.format(state.random_action(seat, rng))
        if move not in state.examples(seat) and move not in found:
            found.append(move)
    return found


def error_text(database: Database, address: str) -> str:
    [row] = mails(database, address, "error_reply")
    return row.body


def mail_to(database: Database, address: str, game_id: int) -> EmailMessage:
    return latest(database, address, game_id)


def test_a_labelled_move_with_greeting_and_name_is_played_and_the_answer_says_what_was_ignored(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    [move] = unlisted_moves(database, game_id, 1)
    typed = f"Hallo Bob,\n\nMein Zug: {move}\n\nThanks!\nCarol"
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed, shape="gmail"))
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["turn"] == 2
    answer = text_of(mail_to(database, ALICE, game_id))
    assert f"'Mein Zug: {move}': played {move}" in answer
    assert "Ignored: 'Hallo Bob,' (a greeting), 'Thanks!' (a closing), 'Carol' (a name)" in answer
    assert not mails(database, ALICE, "error_reply")
    assert move in text_of(mail_to(database, BOB, game_id))


def test_a_command_with_a_line_of_prose_is_done_and_the_answer_says_so(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    typed = "board\nThanks, and sorry for the delay. Nice board!"
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed, shape="outlook"))
    assert row.status == "processed", row.result
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "'board': the board is below" in answer
    assert "Ignored: 'Thanks, and sorry for the delay. Nice board!' (not a command alone" in answer
    assert "Nothing was played" not in answer and not mails(database, ALICE, "error_reply")


def test_two_different_moves_play_nothing_and_ask_which(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    first, second = unlisted_moves(database, game_id, 2)
    typed = f"{first}\nor maybe {second}?\nCarol"
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed, shape="apple"))
    assert row.status == "rejected", row.result
    assert game_row(database, game_id)["turn"] == 1
    answer = error_text(database, ALICE).replace("=\n", "")
    assert "we read 2 different moves in your reply" in answer
    assert "Ignored: 'Carol' (a name)" in text_of(mail_to(database, ALICE, game_id))


def test_an_illegal_move_gets_the_engine_reason_and_the_ignored_lines(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    typed = "Hi,\nmy move: a1-a9\nthanks"
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed))
    assert row.status == "rejected", row.result
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "> my move: a1-a9" in answer and "Why: illegal move 'a1-a9'" in answer
    assert "Ignored: 'Hi,' (a greeting), 'thanks' (a closing)" in answer
    assert "Valid here, for example:" in answer


def test_sealed_orders_over_two_lines_are_received_with_what_was_ignored(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "elasta")
    typed = "Bonjour,\nMes ordres :\na0 b1 c2 d3\ne4 f5 g6 h7\nMerci !\nLéa"
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed, shape="phone"))
    assert row.status == "processed", row.result
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "We have your sealed orders" in answer
    assert "orders 01234567 received" in answer
    assert "Ignored: 'Bonjour,' (a greeting), 'Mes ordres :' (a label), 'Merci !'" in answer


def test_a_move_under_a_quote_of_over_200000_characters_is_found(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    [move] = unlisted_moves(database, game_id, 1)
    original = mail_to(database, ALICE, game_id)
    thread = "\n".join(["> " + line for line in text_of(original).splitlines()] * 160)
    assert len(thread) > 200_000
    mail = EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = ALICE, str(original["Reply-To"]), "Re: turn"
    mail["Message-ID"] = "<huge@example.org>"
    mail.set_content(f"On Mon, 3 Mar 2025, pbem wrote:\n{thread}\n\n{move}\n")
    row = send(database, mail.as_bytes())
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["turn"] == 2


def test_a_resignation_is_answered_by_the_game_over_mail_with_what_was_read(
    database: Database,
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    typed = "resign\nWell played, you were much stronger."
    row = send(database, reply(mail_to(database, ALICE, game_id), ALICE, typed))
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "finished"
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "'resign': you resigned; the game is over" in answer
    assert "Ignored: 'Well played, you were much stronger.'" in answer
