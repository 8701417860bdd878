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
from tests.mail.mail_clients import CLIENTS, answering
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
    # "Mein Zug" made German the player's language (issue 24): the answer is German
    assert f"'Mein Zug: {move}': {move} gespielt" in answer
    ignored = (
        "Ignoriert: 'Hallo Bob,' (ein Gruß), 'Thanks!' (ein Abschiedsgruß), 'Carol' (ein Name)"
    )
    assert ignored in " ".join(answer.split())
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
    # "Bonjour" made French the player's language (issue 24): the whole answer is in French
    assert "Nous avons vos ordres secrets pour le tour 1" in answer
    assert "ordres 01234567 reçus" in answer
    ignored = "Ignoré : 'Bonjour,' (une salutation), 'Mes ordres :' (une étiquette), 'Merci !'"
    assert ignored in " ".join(answer.split())


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


# -- round two (issue 20): real clients' replies to the mails the service sent ---------------


def answer_to_alice(database: Database, game_id: int) -> str:
    """The text of Alice's latest mail of the game, on one line."""
    return " ".join(text_of(mail_to(database, ALICE, game_id)).split())


def client_reply(database: Database, game_id: int, client: str, typed: str) -> InboundMessage:
    """Alice's reply, written by ``client`` (``tests/mail/mail_clients.py``), to her latest
    mail of the game, through the real gateway."""
    raw = answering(CLIENTS[client], mail_to(database, ALICE, game_id), typed, ALICE)
    return send(database, raw)


def test_sealed_orders_after_a_full_width_colon_are_taken_whole_nel_17(database: Database) -> None:
    """Finding 1: QQ Mail, GB18030, the label's full-width colon glued to the first order.
    All of the orders are stored, never the rest of the line without the first."""
    game_id, _, _ = make_game(database, "nelaxtam")
    [orders] = unlisted_moves(database, game_id, 1)
    row = client_reply(database, game_id, "QQ Mail, GB18030", f"我的命令：{orders}\n谢谢！")
    assert row.status == "processed", row.result
    assert f"orders {orders} received" in text_of(mail_to(database, ALICE, game_id))


def test_a_token_of_the_orders_that_cannot_be_read_refuses_the_line_ela_13(
    database: Database,
) -> None:
    """Finding 1, generally: a line taken as orders is read whole, or refused naming the
    token that could not be read; nothing of it is stored."""
    game_id, _, _ = make_game(database, "elasta")
    typed = "Meine Befehle: 02471563 und 0z1"
    row = client_reply(database, game_id, "Thunderbird zh-CN", typed)
    assert row.status == "rejected", row.result
    answer = answer_to_alice(database, game_id)
    said = " ".join(answer.split())  # German, after "Meine Befehle" (issue 24)
    assert "Wir konnten deine Antwort zu" in said and "Es wurde nichts gespielt" in said
    assert "we could read 02471563 in 'Meine Befehle: 02471563 und 0z1', but not '0z1'" in answer
    assert "received" not in answer


def test_an_autocorrected_dash_is_read_in_every_game_epa_12_ant_17(database: Database) -> None:
    """Finding 2: the en dash an iPhone's autocorrect typed, normalised once for all games."""
    for game in ("epaminondas", "anti-grid"):
        game_id, _, _ = make_game(database, game)
        [move] = unlisted_moves(database, game_id, 1)
        typed = move[:1].upper() + move[1:].replace("-", "–")
        row = client_reply(database, game_id, "iPhone Mail", typed)
        assert row.status == "processed", (game, row.result)
        assert game_row(database, game_id)["turn"] == 2


def test_a_hebrew_quote_header_with_directional_marks_ends_the_reply(database: Database) -> None:
    """Finding 3: Gmail in Hebrew quoting only part of our mail (its marker line lost): the
    right-to-left "On ... wrote:" line is a quote header, not a move."""
    game_id, _, _ = make_game(database, "epaminondas")
    [move] = unlisted_moves(database, game_id, 1)
    row = client_reply(database, game_id, "Gmail he, marker lost", f"שלום,\n{move}\nתודה")
    assert row.status == "processed", row.result
    answer = text_of(mail_to(database, ALICE, game_id))
    assert (
        f"played {move}" in answer and "Ignored: 'שלום,' (a greeting), 'תודה' (a closing)" in answer
    )
    assert not mails(database, ALICE, "error_reply")


def test_a_company_footer_is_never_read_as_elasta_orders_ela_13(database: Database) -> None:
    """Finding 4: the registration number HRB 01472653 under a corporate signature would be
    valid orders; only the orders typed are received."""
    game_id, _, _ = make_game(database, "elasta")
    row = client_reply(database, game_id, "Outlook de, company footer", "02471563")
    assert row.status == "processed", row.result
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "orders 02471563 received" in answer
    assert not mails(database, ALICE, "error_reply")


def test_a_move_the_reply_takes_back_is_not_played_and_the_answer_says_so(
    database: Database,
) -> None:
    """Finding 5: "not X, I mean Y" from Zimbra: Y is played, and the answer says X was
    taken back."""
    game_id, _, _ = make_game(database, "epaminondas")
    first, second = unlisted_moves(database, game_id, 2)
    row = client_reply(database, game_id, "Zimbra", f"not {first}, I mean {second}")
    assert row.status == "processed", row.result
    answer = answer_to_alice(database, game_id)
    assert f"played {second}" in answer and f"you took back '{first}'" in answer
    assert second in text_of(mail_to(database, BOB, game_id))


def test_a_resignation_in_a_short_sentence_is_done_and_confirmed(database: Database) -> None:
    """Finding 6: "I resign. Good game!" from K-9 Mail ends the game; the answer says so."""
    game_id, _, _ = make_game(database, "anti-grid")
    row = client_reply(database, game_id, "K-9 Mail", "I resign. Good game!")
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "finished"
    answer = text_of(mail_to(database, ALICE, game_id))
    assert "'I resign. Good game!': you resigned; the game is over" in answer


def test_a_resignation_with_doubt_is_asked_about_and_applied_only_when_confirmed(
    database: Database,
) -> None:
    """Finding 6: "Should I resign?" changes nothing; the answer (a confirm_resign mail) asks
    for "resign" alone, and a reply to it with that resigns."""
    game_id, _, _ = make_game(database, "epaminondas")
    typed = "Should I resign? I really don't see a way out."
    row = client_reply(database, game_id, "Samsung Email", typed)
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "active"
    [asked] = mails(database, ALICE, "confirm_resign")
    question = text_of(mail_to(database, ALICE, game_id))
    assert "sounds unsure, so you have not resigned" in question
    assert 'reply to this mail with "resign" alone' in " ".join(question.split())
    assert "Do you resign?" in asked.subject and not mails(database, ALICE, "error_reply")
    row = client_reply(database, game_id, "Samsung Email", "resign")
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "finished"


def test_a_move_in_a_form_the_notation_does_not_take_gets_did_you_mean_epa_12(
    database: Database,
) -> None:
    """Finding 7: "a1 to a3" from Outlook for iOS is refused, and the answer shows the move
    in notation."""
    game_id, _, _ = make_game(database, "epaminondas")
    [move] = unlisted_moves(database, game_id, 1)
    row = client_reply(database, game_id, "Outlook for iOS", move.replace("-", " to "))
    assert row.status == "rejected", row.result
    assert game_row(database, game_id)["turn"] == 1
    assert f"did you mean {move}?" in answer_to_alice(database, game_id)
