"""Issue 24, the rest of the service's refusals: the players', the time control's and the
conditional moves' own refusals come out in the reader's language (here German and Russian),
with no English left, their ``code`` unchanged and their English as before."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from service import clock, conditional, games, players
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
