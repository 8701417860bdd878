"""Refusals in the reader's language (issue 24): the API's error ``message`` in the token's
player's language, else the browser's (``Accept-Language``), else English; ``code`` stays."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service import records
from service.cli import main
from service.db import Database
from service.errors import ServiceError
from tests.engine.test_dice import finished_game
from tests.service.conftest import Client
from tests.service.test_chain import finished


def error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    return dict(response.get_json()["error"])


def asking(client: Client, path: str, language: str) -> Any:
    headers = {"Authorization": f"Bearer {client.token}", "Accept-Language": language}
    return client.client.get("/api/v1" + path, headers=headers)


def speaking(client: Client, language: str) -> Client:
    client.ok("PATCH", "/players/me", {"language": language})
    return client


def test_a_refusal_is_in_the_players_language(alice: Client) -> None:
    speaking(alice, "de")
    found = error(alice.get("/games/999999"), 404)
    assert found == {"code": "not_found", "message": "es gibt keine Partie 999999"}


def test_the_players_language_wins_over_the_browsers(alice: Client) -> None:
    speaking(alice, "fr")
    response = asking(alice, "/games/999999", "de")
    assert error(response, 404)["message"] == "il n'y a pas de partie 999999"


def test_without_a_language_the_browsers_is_used(alice: Client) -> None:
    response = asking(alice, "/games/999999", "ru, en;q=0.5")
    assert error(response, 404)["message"] == "партии 999999 нет"


def test_english_stays_as_it_was(alice: Client) -> None:
    assert error(alice.get("/games/999999"), 404)["message"] == "there is no game 999999"


def test_the_auth_gate_answers_in_the_browsers_language(anonymous: Client) -> None:
    response = anonymous.client.post(
        "/api/v1/games", json={"game": "duel"}, headers={"Accept-Language": "fr-CH"}
    )
    found = error(response, 401)
    assert found["code"] == "unauthorized"
    assert found["message"] == (
        "envoyez votre jeton d'API sous la forme 'Authorization: Bearer <token>'"
    )


def test_a_body_refused_before_the_route_runs_is_in_the_players_language(alice: Client) -> None:
    speaking(alice, "ru")
    found = error(alice.request("PATCH", "/players/me", json={"board_flip": "yes"}), 400)
    assert found["code"] == "bad_field"
    assert found["message"] == "board_flip: ожидается true или false, а не строка"


def test_a_counted_body_check_takes_the_languages_plural(alice: Client) -> None:
    speaking(alice, "pl")
    long_name = "x" * 500
    found = error(alice.request("PATCH", "/players/me", json={"name": long_name}), 400)
    assert found["code"] == "bad_request"
    assert "może mieć najwyżej" in found["message"] and "znaków; otrzymano 500" in found["message"]


def test_werkzeugs_404_and_405_in_german(alice: Client) -> None:
    speaking(alice, "de")
    missing = error(alice.get("/no/such/thing"), 404)
    assert missing["code"] == "not_found"
    assert missing["message"].startswith("Die angeforderte URL wurde auf dem Server nicht")
    wrong = alice.client.open(
        "/api/v1/catalog", method="DELETE", headers={"Accept-Language": "de-AT"}
    )
    found = error(wrong, 405)
    assert found["message"] == "Die Methode ist für die angeforderte URL nicht erlaubt."
    assert "GET" in wrong.headers["Allow"]


# -- the player's command-line checks, in a language of their choice --------------------------


def test_pbem_record_verify_prints_the_faults_of_a_tampered_record_in_german(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = finished(database, admin, alice, bob, "epaminondas")
    record = alice.ok("GET", f"/games/{game_id}/record")
    link = next(link for link in record["chain"] if link["kind"] == "move" and link["n"] > 4)
    forged = copy.deepcopy(record)
    forged["chain"][link["n"]]["data"]["text"] = "a1-a2"
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    result = CliRunner().invoke(main, ["record", "verify", "--language", "de", str(path)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    turn = link["data"]["turn"]
    assert lines[0] == "Glied #0 (Start): ok"
    assert lines[-1] == (
        f"ABWEICHUNG: Glied #{link['n']} (Zug, Runde {turn}): sein Hash passt nicht zu seinem"
        " Inhalt"
    )
    english = CliRunner().invoke(main, ["record", "verify", str(path)])
    assert english.output.splitlines()[0] == "link #0 (start): ok"


def test_pbem_dice_verify_in_french(tmp_path: Path) -> None:
    log = finished_game()
    path = tmp_path / "honest.json"
    path.write_text(json.dumps(log.record(reveal=True)))
    result = CliRunner().invoke(main, ["dice", "verify", "--language", "fr", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "engagement : le SHA-256 de la graine correspond"
    assert lines[1].startswith("lancer 1 : ") and lines[1].endswith(" correspond")
    assert lines[-1] == f"OK : les {log.rolls} lancers correspondent tous à la graine engagée"


def test_a_refused_record_import_says_why_in_the_callers_language(database: Database) -> None:
    with pytest.raises(ServiceError) as refused, database.transaction() as session:
        records.import_record(session, [], None)
    assert refused.value.message == "record refused at the top: a record is a JSON object"
    assert refused.value.localized("de") == (
        "Aufzeichnung abgelehnt (oberste Ebene): eine Aufzeichnung ist ein JSON-Objekt"
    )
