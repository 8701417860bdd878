"""Issue 24, the rest of the service's refusals: the players', the time control's and the
conditional moves' own refusals come out in the reader's language (here German and Russian),
with no English left, their ``code`` unchanged and their English as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service import clock, conditional, games, i18n, players
from service.db import Database
from service.errors import ServiceError
from service.mail import gateway
from service.models import Player
from tests.service.conftest import Client
from tests.service.gateway_kit import inbound, latest, make_game, reply, text_of

ALICE = "alice@example.org"

# (what refuses, its English, German and Russian)
REFUSALS: list[tuple[Callable[[], Any], str, str, str]] = [
    (
        lambda: clock.normalise({"hours": 5}),
        "time_control has no field 'hours'; fields are days, skip_weekends, forfeit_after, bank",
        "time_control hat kein Feld 'hours'; die Felder sind days, skip_weekends,"
        " forfeit_after, bank",
        "в time_control нет поля 'hours'; есть поля days, skip_weekends, forfeit_after, bank",
    ),
    (
        lambda: clock.normalise({"days": 5000}),
        "time_control.days must be at most 3650 days, got 5000",
        "time_control.days darf höchstens 3650 Tage betragen, nicht 5000",
        "time_control.days может быть не больше 3650 дней, а не 5000",
    ),
    (
        lambda: clock.normalise({"skip_weekends": "yes"}),
        "time_control.skip_weekends must be true or false",
        "time_control.skip_weekends muss true oder false sein",
        "time_control.skip_weekends должно быть true или false",
    ),
    (
        lambda: conditional.read_lines("when a1 do b2"),
        "cannot read 'when a1 do b2': write 'if <their move> then <your move>', and for a"
        " deeper level go on with 'if ... then ...' on the same line",
        "'when a1 do b2' ist nicht lesbar: schreib 'if <sein Zug> then <dein Zug>' und für eine"
        " tiefere Ebene in derselben Zeile weiter mit 'if ... then ...'",
        "не удаётся прочитать 'when a1 do b2': напишите 'if <ход соперника> then <ваш ход>',"
        " а для следующего уровня продолжите 'if ... then ...' в той же строке",
    ),
    (
        lambda: conditional.read_lines(" \n "),
        "give at least one line 'if <their move> then <your move>'",
        "gib mindestens eine Zeile 'if <sein Zug> then <dein Zug>' an",
        "укажите хотя бы одну строку 'if <ход соперника> then <ваш ход>'",
    ),
    (
        lambda: players._language("xx"),
        "language must be one of en, de, fr, es, it, nl, pt, pl, ru; got 'xx'",
        "language muss einer dieser Werte sein: en, de, fr, es, it, nl, pt, pl, ru;"
        " angegeben war 'xx'",
        "language должно быть одним из значений: en, de, fr, es, it, nl, pt, pl, ru; получено 'xx'",
    ),
    (
        lambda: players._once_each(["twice@example.org", "Twice@Example.org"]),
        "emails lists the address twice@example.org twice; give each address once",
        "emails nennt die Adresse twice@example.org zweimal; gib jede Adresse nur einmal an",
        "в emails адрес twice@example.org указан дважды; укажите каждый адрес один раз",
    ),
    (
        lambda: players._check_page("", 0, 0),
        "limit 0 is out of range: give 1 to 200 players a page",
        "limit 0 liegt außerhalb des Bereichs: gib 1 bis 200 Spieler pro Seite an",
        "limit 0 вне допустимого диапазона: укажите от 1 до 200 игроков на страницу",
    ),
]


@pytest.mark.parametrize(("refuse", "english", "german", "russian"), REFUSALS)
def test_each_refusal_is_in_german_and_russian(
    refuse: Callable[[], Any], english: str, german: str, russian: str
) -> None:
    with pytest.raises(ServiceError) as refused:
        refuse()
    assert refused.value.message == english
    assert refused.value.localized("en") == english
    assert refused.value.localized("de") == german
    assert refused.value.localized("ru") == russian


def test_a_vacation_refused_by_the_api_is_in_the_players_language(alice: Client) -> None:
    english = alice.request("POST", "/players/me/vacation", json={"days": 100})
    assert english.status_code == 409, english.get_data(as_text=True)
    message = english.get_json()["error"]["message"]
    left = message.split()[1]  # what is left depends on the day of the year
    assert message == f"only {left} vacation days are left this year; asked for 100"
    alice.ok("PATCH", "/players/me", {"language": "de"})
    german = alice.request("POST", "/players/me/vacation", json={"days": 100})
    assert german.get_json()["error"] == {
        "code": "conflict",
        "message": f"dieses Jahr sind nur noch {left} Urlaubstage übrig; verlangt waren 100",
    }
    alice.ok("PATCH", "/players/me", {"language": "ru"})
    russian = alice.request("POST", "/players/me/vacation", json={"days": 100})
    assert russian.get_json()["error"]["message"] == (
        f"в этом году осталось дней отпуска: {left}; запрошено: 100"
    )


# (method, path under the game, body, status, code, German, Russian): refusals in a game of
# Duel (sealed orders), by the API
IN_A_GAME: list[tuple[str, str, Any, int, str, str, str]] = [
    (
        "POST",
        "/draw/accept",
        None,
        409,
        "no_offer",
        "es gibt kein Remisangebot, das du annehmen könntest",
        "нет предложения ничьей, которое можно принять",
    ),
    (
        "POST",
        "/draw/withdraw",
        None,
        409,
        "no_offer",
        "du hast kein Remisangebot, das du zurückziehen könntest",
        "у вас нет предложения ничьей, которое можно отозвать",
    ),
    (
        "DELETE",
        "/conditional",
        None,
        409,
        "no_conditional",
        "du hast in dieser Partie keine bedingten Züge, die du zurückziehen könntest",
        "в этой партии у вас нет условных ходов, которые можно отозвать",
    ),
    (
        "POST",
        "/withdraw",
        {"turn": 1},
        409,
        "no_orders",
        "du hast in dieser Runde keine verdeckten Befehle, die du zurückziehen könntest",
        "в этом ходе у вас нет скрытых приказов, которые можно отозвать",
    ),
]


@pytest.mark.parametrize("language", ["de", "ru"])
@pytest.mark.parametrize(
    ("method", "path", "body", "status", "code", "german", "russian"),
    IN_A_GAME,
    ids=[case[1] for case in IN_A_GAME],
)
def test_a_refusal_in_a_game_is_in_the_players_language(
    alice: Client,
    bob: Client,
    language: str,
    method: str,
    path: str,
    body: Any,
    status: int,
    code: str,
    german: str,
    russian: str,
) -> None:
    game = alice.ok("POST", "/games", {"game": "duel", "seats": [alice.id, bob.id]}, 201)
    where = f"/games/{game['game']['id']}{path}"
    english = alice.request(method, where, json=body)
    assert english.status_code == status, english.get_data(as_text=True)
    alice.ok("PATCH", "/players/me", {"language": language})
    response = alice.request(method, where, json=body)
    found = response.get_json()["error"]
    assert (response.status_code, found["code"]) == (status, code)
    assert found["code"] == english.get_json()["error"]["code"]
    assert found["message"] == (german if language == "de" else russian)


def test_a_failure_on_our_side_is_apologised_for_in_the_players_language(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gateway's word after a failure on our side (issue 24, point 2), through the real
    gateway: in German for a German player."""
    game_id, alice_id, _ = make_game(database)
    with database.transaction() as session:
        player = session.get(Player, alice_id)
        assert player is not None
        player.language = "de"

    def explode(*args: object, **kwargs: object) -> object:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(games, "submit", explode)
    raw = reply(latest(database, ALICE, game_id), ALICE, "take 1")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.status == "failed"
    text = text_of(latest(database, ALICE))
    assert "Beim Lesen deiner Mail ist bei uns etwas schiefgegangen." in text
    assert "went wrong on our side" not in text


def test_a_command_word_used_wrongly_is_explained_in_the_players_language(
    database: Database,
) -> None:
    """The "write ... alone on a line" note (issue 24, point 2), through the real gateway."""
    game_id, alice_id, _ = make_game(database)
    with database.transaction() as session:
        player = session.get(Player, alice_id)
        assert player is not None
        player.language = "de"
    raw = reply(latest(database, ALICE, game_id), ALICE, "preview")
    inbound(database, gateway.receive(database, raw, "inject").id)
    text = " ".join(text_of(latest(database, ALICE)).split())  # the text part is wrapped
    assert (
        "Ignoriert: 'preview' (kein Befehl allein in seiner Zeile: schreib 'preview' und danach"
        " deinen Zug, z. B. 'preview a1-a3')"
    ) in text
    assert "alone on its line" not in text and "then your move" not in text


# -- the rest of issue 24: gateway answers, conditional positions, body checks, figures -----


def _speaking(database: Database, player_id: int, language: str) -> None:
    with database.transaction() as session:
        session.get_one(Player, player_id).language = language


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "de",
            "eine Mail an deine Antwortadresse kam von bob@example.org, das ist keine deiner"
            " Adressen, daher wurde sie nicht gespielt: antworte von der Adresse, an die wir"
            " schreiben",
        ),
        (
            "ru",
            "письмо на ваш адрес для ответа пришло с bob@example.org, а это не ваш адрес,"
            " поэтому оно не сыграно: отвечайте с адреса, на который мы пишем",
        ),
    ],
)
def test_a_mail_from_another_address_is_answered_in_the_players_language(
    database: Database, language: str, said: str
) -> None:
    """Bob writes to Alice's reply address: Alice hears of it in her language, the stored
    result keeps the English."""
    game_id, alice_id, _ = make_game(database)
    _speaking(database, alice_id, language)
    raw = reply(latest(database, ALICE, game_id), "bob@example.org", "take 1")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.status == "rejected" and "which is not one of your addresses" in (row.result or "")
    text = " ".join(text_of(latest(database, ALICE)).split())
    assert said in text and "not one of your addresses" not in text


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "de",
            "Diese Adresse ist keine unserer Antwortadressen, deine Mail ist also bei keiner"
            " Partie angekommen.",
        ),
        (
            "fr",
            "Cette adresse n'est pas l'une de nos adresses de réponse, votre mail n'est donc"
            " allé à aucune partie.",
        ),
    ],
)
def test_a_mail_to_an_address_we_did_not_issue_is_answered_in_the_players_language(
    database: Database, language: str, said: str
) -> None:
    """A registered player writes to an address of our domain that is no reply address: how
    to take part, once, in their language."""
    _, alice_id, _ = make_game(database)
    _speaking(database, alice_id, language)
    raw = reply(None, ALICE, "hello?", to=f"hello@{database.settings.mail_domain}")
    row = inbound(database, gateway.receive(database, raw, "inject").id)
    assert row.result == gateway.UNKNOWN_ANSWERED
    text = " ".join(text_of(latest(database, ALICE)).split())
    assert said in text and "not one of our reply addresses" not in text


def test_the_gateways_reasons_are_catalog_texts_with_english_unchanged() -> None:
    """What the gateway keeps (its result) stays English; what it says is the reader's."""
    closed = gateway._league_closed(
        type("League", (), {"id": 3, "name": "Cup", "status": "running"})
    )
    assert str(closed) == (
        "league 3 (Cup) has started, so entries are closed and invitations can no longer be"
        " answered"
    )
    assert closed.in_("it") == (
        "la lega 3 (Cup) è iniziata, quindi le iscrizioni sono chiuse e non si può più"
        " rispondere agli inviti"
    )
    forged = i18n.Said.of(gateway.REPLY_ADDRESS_FORGED)
    assert str(forged) == "this reply address was not issued by us"
    assert forged.in_("de") == "diese Antwortadresse stammt nicht von uns"


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "de",
            "time_zone muss ein bekannter Zeitzonenname wie 'Europe/Vienna' sein; angegeben war"
            " 'Mars/Base'",
        ),
        (
            "ru",
            "time_zone должно быть известным значением (имя часового пояса вроде"
            " 'Europe/Vienna'); получено 'Mars/Base'",
        ),
    ],
)
def test_the_time_zone_check_is_in_the_callers_language(
    alice: Client, language: str, said: str
) -> None:
    english = alice.request("PATCH", "/players/me", json={"time_zone": "Mars/Base"})
    assert english.status_code == 400, english.get_data(as_text=True)
    assert english.get_json()["error"]["message"] == (
        "time_zone must be a known time zone name like 'Europe/Vienna'; got 'Mars/Base'"
    )
    alice.ok("PATCH", "/players/me", {"language": language})
    answer = alice.request("PATCH", "/players/me", json={"time_zone": "Mars/Base"})
    assert answer.get_json()["error"]["code"] == english.get_json()["error"]["code"]
    assert answer.get_json()["error"]["message"] == said


def test_a_conditional_line_that_quotes_the_position_is_in_the_players_language(
    alice: Client, bob: Client
) -> None:
    """Alice is to move: a conditional move of hers answers nothing. The refusal quotes the
    line and the position there in her language (German, Russian)."""
    data = {"game": "epaminondas", "options": {}, "seats": [alice.id, bob.id]}
    game = alice.ok("POST", "/games", data, 201)["game"]["id"]
    where = f"/games/{game}/conditional"
    body = {"text": "if a1-a2 then b1-b2", "turn": 1}
    english = alice.request("POST", where, json=body)
    assert english.status_code == 409, english.get_data(as_text=True)
    message = english.get_json()["error"]["message"]
    assert message.startswith("in 'if a1-a2 then b1-b2': it is not your opponent's move there (")
    assert message.endswith("); a conditional move answers the opponent's next move")
    for language, start, end in (
        ("de", "in 'if a1-a2 then b1-b2': dort ist nicht dein Gegner am Zug (", "Gegners"),
        ("ru", "в 'if a1-a2 then b1-b2': в этой позиции ходит не ваш соперник (", "соперника"),
    ):
        alice.ok("PATCH", "/players/me", {"language": language})
        found = alice.request("POST", where, json=body).get_json()["error"]
        assert found["code"] == "not_their_move"
        assert found["message"].startswith(start) and found["message"].endswith(end)
        assert "to move" not in found["message"] and " turn" not in found["message"]


def test_an_expired_invitations_date_is_written_as_the_players_language_writes_it() -> None:
    """English as before (``2030-01-31 12:00 UTC``); German in the player's time zone."""
    from datetime import datetime

    from service.errors import Conflict
    from service.leagues import leagues
    from service.leagues.refusals import refused

    when = leagues._moment(datetime(2030, 1, 31, 12, 0), "Europe/Berlin")
    error = refused(
        Conflict,
        "the invitation of %(name)s to league %(id)s expired on %(when)s; ask the league's "
        "director to invite you again",
        "invitation_expired",
        name="Alice",
        id=4,
        when=when,
    )
    assert error.message.endswith(
        "expired on 2030-01-31 12:00 UTC; ask the league's director to invite you again"
    )
    assert error.localized("en") == error.message
    german = error.localized("de")
    assert "am Do., 31. Jan. 2030, 13:00 CET (Europe/Berlin) abgelaufen" in german, german
    assert "UTC" not in german
