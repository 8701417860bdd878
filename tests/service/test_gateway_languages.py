"""Mail commands in the player's language, through the real gateway path (issue 24): a
German player's ``aufgeben`` resigns, with the same confirmation rules as ``resign``;
``remis`` offers a draw and ``annehmen`` takes it; ``hilfe`` gets the help mail in German.
One command of each other language is run too."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_string, policy
from email.message import EmailMessage

import pytest

from service import digest, records
from service.db import Database
from service.mail import gateway
from service.mail.models import InboundMessage
from service.models import Player, Turn
from tests.service.gateway_kit import (
    game_row,
    inbound,
    latest,
    mails,
    make_game,
    player_id,
    reply,
    text_of,
)

ALICE, BOB = "alice@example.org", "bob@example.org"


def send(database: Database, who: str, typed: str, game_id: int) -> InboundMessage:
    raw = reply(latest(database, who, game_id), who, typed)
    return inbound(database, gateway.receive(database, raw, "inject").id)


def speaks(database: Database, address: str, code: str) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id(database, address)).language = code


def test_a_german_players_aufgeben_resigns_only_when_meant(database: Database) -> None:
    """A doubtful "Soll ich aufgeben?" changes nothing and asks (a confirm_resign mail); "Ich
    gebe nicht auf" resigns nobody; "Aufgeben" alone ends the game, as "resign" does."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    row = send(database, BOB, "Soll ich aufgeben? Ich sehe keinen Ausweg.", game_id)
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "active"
    assert len(mails(database, BOB, "confirm_resign")) == 1
    send(database, BOB, "Ich gebe nicht auf!", game_id)
    assert game_row(database, game_id)["status"] == "active"
    row = send(database, BOB, "Aufgeben.", game_id)
    assert row.status == "processed", row.result
    assert game_row(database, game_id)["status"] == "finished"
    assert "resigned" in text_of(latest(database, ALICE, game_id))


def test_remis_offers_a_draw_and_annehmen_takes_it(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "de")
    speaks(database, BOB, "de")
    row = send(database, ALICE, "Hallo Bob,\nRemis\nViele Grüße", game_id)
    assert "draw offered" in (row.result or ""), row.result
    row = send(database, BOB, "Ich nehme das Remis an.", game_id)
    assert "draw agreed" in (row.result or ""), row.result
    assert game_row(database, game_id)["status"] == "finished"


def test_hilfe_gets_the_help_mail_in_german(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    row = send(database, BOB, "Hilfe!", game_id)
    assert row.status == "processed", row.result
    [helped] = mails(database, BOB, "help")
    assert "Hilfe: die Befehle, die du uns mailen kannst" in helped.subject
    answer = text_of(latest(database, BOB, game_id))
    assert "Hallo Bob. Schreib einen Befehl" in answer
    for line in ("aufgeben / resign", "remis / draw", "hilfe / help", "die Partie aufgeben"):
        assert line in answer


@pytest.mark.parametrize(
    ("code", "typed", "done"),
    [
        ("fr", "Je propose la nulle", "draw offered"),
        ("es", "Tablas", "draw offered"),
        ("it", "Patta", "draw offered"),
        ("nl", "Remise", "draw offered"),
        ("pt", "Empate", "draw offered"),
        ("pl", "Proponuję remis", "draw offered"),
        ("ru", "Предлагаю ничью", "draw offered"),
    ],
)
def test_a_draw_is_offered_in_each_language(
    database: Database, code: str, typed: str, done: str
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, code)
    row = send(database, ALICE, typed, game_id)
    assert done in (row.result or ""), row.result


@pytest.mark.parametrize(
    ("code", "typed", "subject"),
    [
        ("fr", "Aide", "Aide : les commandes"),
        ("es", "Ayuda", "Ayuda: los comandos"),
        ("it", "Aiuto", "Aiuto: i comandi"),
        ("nl", "Help", "Help: de opdrachten"),
        ("pt", "Ajuda", "Ajuda: os comandos"),
        ("pl", "Pomoc", "Pomoc: polecenia"),
        ("ru", "Помощь", "Справка: команды"),
    ],
)
def test_help_in_each_language(database: Database, code: str, typed: str, subject: str) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, code)
    send(database, BOB, typed, game_id)
    [helped] = mails(database, BOB, "help")
    assert subject in helped.subject


@pytest.mark.parametrize(
    ("typed", "resigns"),
    [("Je n'abandonne pas", False), ("¿Me rindo?", False), ("Сдаюсь", True), ("Desisto", True)],
)
def test_resigning_in_other_languages_is_as_deliberate(
    database: Database, typed: str, resigns: bool
) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    send(database, BOB, typed, game_id)
    assert game_row(database, game_id)["status"] == ("finished" if resigns else "active")


# -- the answers, in the player's language (issue 24) -------------------------------------------


def settle(database: Database, address: str, **values: str) -> None:
    with database.transaction() as session:
        player = session.get_one(Player, player_id(database, address))
        for name, value in values.items():
            setattr(player, name, value)


def answer_to(database: Database, address: str, kind: str) -> tuple[str, str]:
    """The subject and plain text of the latest ``kind`` mail to ``address``."""
    row = mails(database, address, kind)[-1]
    parsed = message_from_string(row.body, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    return str(parsed["Subject"]), " ".join(text_of(parsed).split())


def test_a_german_players_move_gets_a_german_receipt(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    settle(database, ALICE, language="de", own_copy="short")
    row = send(database, ALICE, "Hallo Bob,\nMein Zug: a1-a3\nViele Grüße", game_id)
    assert row.status == "processed" and "played a1-a3" in (row.result or "")  # the log: English
    subject, text = answer_to(database, ALICE, "move_receipt")
    assert subject.endswith("Du hast a1-a3 gespielt (Zug 1)")
    assert f"Gespielt: a1-a3 in Epaminondas #{game_id}, Zug 1" in text
    assert "'Mein Zug: a1-a3': a1-a3 gespielt" in text or "': a1-a3 gespielt" in text
    assert "Ignoriert: 'Hallo Bob,' (ein Gruß)" in text


def test_a_german_players_refusals_are_german(database: Database) -> None:
    """Not their turn, then a reply to a turn that is over: each answer says why in German."""
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, ALICE, "de")
    speaks(database, BOB, "de")
    row = send(database, BOB, "a12-a10", game_id)
    assert row.status == "rejected"
    subject, text = answer_to(database, BOB, "error_reply")
    assert subject.endswith("Wir konnten deine Antwort nicht verwenden")
    assert f"Tut uns leid, Bob: Wir konnten deine Antwort zu Epaminondas #{game_id}" in text
    assert "Wir haben gelesen: > a12-a10" in text and "Warum:" in text
    first = latest(database, BOB, game_id)  # of turn 1
    assert send(database, ALICE, "a1-a3", game_id).status == "processed"
    stale = reply(first, BOB, "a12-a10")
    assert inbound(database, gateway.receive(database, stale, "inject").id).status == "rejected"
    _, text = answer_to(database, BOB, "error_reply")
    assert "Zug 1 ist vorbei, jetzt ist Zug 2" in text, text
    assert "turn 1 is over" not in text


def test_a_doubtful_aufgeben_is_asked_about_in_german(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    send(database, BOB, "Soll ich aufgeben?", game_id)
    subject, text = answer_to(database, BOB, "confirm_resign")
    assert subject.endswith('Gibst du auf? Antworte "aufgeben", um es zu bestätigen')
    assert "Das klingt unsicher, darum hast du nicht aufgegeben" in text
    assert "nicht ausgeführt: das klingt unsicher, also hast du nicht aufgegeben" in text


def test_a_german_resignation_is_answered_in_german(database: Database) -> None:
    game_id, _, _ = make_game(database, "epaminondas")
    speaks(database, BOB, "de")
    send(database, BOB, "Ich gebe auf.", game_id)
    assert game_row(database, game_id)["status"] == "finished"
    text = " ".join(text_of(latest(database, BOB, game_id)).split())
    assert "du hast aufgegeben; die Partie ist vorbei" in text


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("de", "Tagesübersicht: 2 Partien, 2 warten auf dich"),
        ("ru", "Сводка за день: 2 партии, ждут вас: 2"),
        ("pl", "Podsumowanie dnia: 2 partie, czeka na ciebie: 2"),
    ],
)
def test_the_digest_is_in_the_readers_language(database: Database, code: str, said: str) -> None:
    """Two games waiting: Russian and Polish say "2 партии", "2 partie" (their few-form)."""
    first, _, _ = make_game(database, "epaminondas")
    settle(database, BOB, language=code, notify="digest")
    second, _, _ = make_game(database, "epaminondas")
    for game_id in (first, second):
        assert send(database, ALICE, "a1-a3", game_id).status == "processed"
    with database.transaction() as session:
        assert digest.send(session, player_id(database, BOB), datetime.now(UTC)) is not None
    subject, text = answer_to(database, BOB, "digest")
    assert subject == f"[pbem] {said}"
    if code == "de":
        assert "Du bist am Zug." in text and "Spielseite:" in text
    if code == "ru":
        assert "Ваш ход." in text and "Страница партии:" in text


@pytest.mark.parametrize(
    ("code", "played"),
    [
        ("en", "White played a1-a3."),
        ("de", "Weiß spielte a1-a3."),
        ("pl", "Białe zagrały a1-a3."),
    ],
)
def test_the_digest_tells_each_turns_events_in_the_readers_language(
    database: Database, code: str, played: str
) -> None:
    """What happened since the held mails is said as they said it: the move Alice mailed
    reaches Bob's digest in his language, in both games; in English as before."""
    games = [make_game(database, "epaminondas")[0]]
    settle(database, BOB, language=code, notify="digest")
    games.append(make_game(database, "epaminondas")[0])
    for game_id in games:
        assert send(database, ALICE, "a1-a3", game_id).status == "processed"
    with database.transaction() as session:
        assert digest.send(session, player_id(database, BOB), datetime.now(UTC)) is not None
    row = mails(database, BOB, "digest")[-1]
    _, text = answer_to(database, BOB, "digest")
    assert text.count(f"- {played}") == 2
    if code != "en":
        assert "White played" not in text
    html = next(
        part.get_content()
        for part in message_from_string(row.body, policy=policy.default).walk()
        if part.get_content_type() == "text/html"
    )
    assert html.count(f"<li>{played}</li>") == 2


def test_a_digest_keeps_a_turns_english_events_when_no_held_mail_tells_the_same() -> None:
    """Events are taken from a held mail only where it tells the turn's very events (as
    many, the same kinds and seats); else, as for a turn no held mail tells of, English."""
    turn = Turn(number=3, events=[{"text": "White played a1-a3.", "kind": "move", "seat": 0}])
    german = [{"text": "Weiß spielte a1-a3.", "kind": "move", "seat": 0}]
    assert digest._in_language(turn, german)[0]["text"] == "Weiß spielte a1-a3."
    assert digest._in_language(turn, None) == turn.events
    assert digest._in_language(turn, german * 2) == turn.events
    assert digest._in_language(turn, [german[0] | {"seat": 1}]) == turn.events


def test_the_digest_tells_the_readers_own_move_in_their_language_too(database: Database) -> None:
    """Bob's own move, of which he got only a short receipt (no held mail tells of it), is in
    his digest in German as well: the turn's row keeps each event's reason, not only its
    English, while the record keeps the English alone."""
    from tests.service.test_gateway_engine_lines import a_move

    game_id = make_game(database, "epaminondas")[0]
    settle(database, BOB, language="de", notify="digest")
    assert send(database, ALICE, "a1-a3", game_id).status == "processed"
    own = a_move(database, game_id, 1)
    assert send(database, BOB, own, game_id).status == "processed"
    with database.transaction() as session:
        assert digest.send(session, player_id(database, BOB), datetime.now(UTC)) is not None
        turns = session.query(Turn).filter(Turn.game_id == game_id).order_by(Turn.number).all()
        assert all("why" in event for turn in turns[:2] for event in turn.events)
    _, text = answer_to(database, BOB, "digest")
    assert "- Weiß spielte a1-a3." in text and f"- Schwarz spielte {own}." in text, text
    assert " played " not in text
    with database.transaction() as session:
        turns_told = records.export(session, game_id)["turns"]
    assert all(set(event) == {"text", "kind", "seat"} for t in turns_told for event in t["events"])


@pytest.mark.parametrize(
    ("code", "over"),
    [
        ("en", "is over: 0-1, White resigned."),
        ("de", "ist zu Ende: 0-1, Weiß hat aufgegeben."),
        ("ru", "Белые: сдача партии"),
    ],
)
def test_a_game_ended_off_the_board_is_told_in_the_readers_language(
    database: Database, code: str, over: str
) -> None:
    """A resignation's reason is the service's, not the engine's: the game's row keeps it as a
    reason, so the game-over mail and the player's page say it in their reader's words, while
    the record and the API keep the English."""
    from tests.service.test_gateway_engine_texts import speaks
    from tests.service.test_gateway_engine_texts import text as mail_text

    game_id = make_game(database, "epaminondas")[0]
    speaks(database, BOB, code)
    assert send(database, ALICE, "resign", game_id).status == "processed"
    told = " ".join(mail_text(database, BOB, "game_over").split())
    assert over in told, told
    if code != "en":  # the record under it is data: its tags stay English, as PGN's do
        assert "resigned" not in told.replace('"White resigned"]', "")
    with database.transaction() as session:
        result = records.export(session, game_id)["result"]
    assert result["reason"] == "White resigned" and "why" not in result
