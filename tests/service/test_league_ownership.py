"""League ownership (issue 15): a director runs the leagues they created or co-direct, and
their games; admins run everything. Every director tool, by API and by ``pbem league --by``,
is tried as a foreign director and must be refused with 403 (exit 2) saying whose it is,
leaving nothing changed; a co-director added by the owner may then act."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner
from flask import Flask
from sqlalchemy import func, select

from service import players
from service.cli import main
from service.db import Database
from service.leagues.models import AuditEntry
from tests.service.conftest import Client, new_player


def director(app: Flask, database: Database, name: str) -> Client:
    with database.transaction() as session:
        data = {"name": name, "emails": [f"{name.lower()}@example.org"], "roles": ["td"]}
        player, token = players.create(session, None, data)
        info = players.to_json(player, private=True)
    return Client(app.test_client(), token, info)


@pytest.fixture
def tess(app: Flask, database: Database) -> Client:
    return director(app, database, "Tess")


@pytest.fixture
def tom(app: Flask, database: Database) -> Client:
    return director(app, database, "Tom")


def tess_league(admin: Client, tess: Client, game: str = "countdown") -> dict[str, Any]:
    """Tess's running league of four, and a game of it."""
    data = {"name": "Tess Cup", "game": game, "time_control": {"days": 2}}
    made = tess.ok("POST", "/leagues", data, 201)["league"]
    people = [new_player(admin, name) for name in ("Alice", "Bob", "Cyd", "Dee")]
    tess.ok("POST", f"/leagues/{made['id']}/players", {"players": [p.id for p in people]})
    for person in people:
        person.ok("POST", f"/leagues/{made['id']}/accept")
    data = tess.ok("POST", f"/leagues/{made['id']}/start")["league"]
    data["people"] = people
    return data


def foreign_requests(league: dict[str, Any], game_id: int) -> list[tuple[str, str, Any]]:
    """Every director tool of the API, with a body that would succeed for an owner."""
    lid, gid = league["id"], game_id
    someone = league["people"][0].id
    return [
        ("POST", f"/leagues/{lid}/pause", {"reason": "x"}),
        ("POST", f"/leagues/{lid}/resume", {"reason": "x"}),
        ("POST", f"/leagues/{lid}/players", {"players": ["new@example.org"]}),
        ("POST", f"/leagues/{lid}/start", {}),
        ("POST", f"/leagues/{lid}/withdraw", {"player": someone, "reason": "x"}),
        ("POST", f"/leagues/{lid}/message", {"subject": "Hi", "text": "hello"}),
        ("GET", f"/leagues/{lid}/audit", None),
        ("POST", f"/leagues/{lid}/directors", {"player": "tom@example.org"}),
        ("POST", "/leagues/next-season", {"divisions": [lid]}),
        ("POST", f"/games/{gid}/pause", {"reason": "x"}),
        ("POST", f"/games/{gid}/resume", {"reason": "x"}),
        ("POST", f"/games/{gid}/extend", {"days": 1, "reason": "x"}),
        ("POST", f"/games/{gid}/replace", {"player": someone, "by": someone, "reason": "x"}),
        ("POST", f"/games/{gid}/result", {"result": "1-0", "reason": "x"}),
        ("POST", f"/games/{gid}/process", {"reason": "x"}),
        ("POST", f"/games/{gid}/void", {"reason": "x"}),
        ("PATCH", f"/games/{gid}/deadline", {"deadline": "2031-01-01T12:00:00Z"}),
    ]


def audit_count(database: Database) -> int:
    with database.transaction() as session:
        return int(session.scalar(select(func.count(AuditEntry.id))) or 0)


def test_a_foreign_director_is_refused_by_every_director_tool_of_the_api(
    database: Database, admin: Client, tess: Client, tom: Client
) -> None:
    league = tess_league(admin, tess)
    game_id = league["rounds"][0]["games"][0]["game"]
    before = audit_count(database)
    for method, path, data in foreign_requests(league, game_id):
        answer = tom.request(method, path, json=data)
        assert answer.status_code == 403, (method, path, answer.get_json())
        message = answer.get_json()["error"]["message"]
        assert "Tom does not direct league" in message and "Tess" in message, (path, message)
    assert audit_count(database) == before
    assert tom.ok("GET", f"/leagues/{league['id']}")["league"]["join_code"] is None
    assert tom.ok("GET", f"/games/{game_id}")["game"]["deadline"] is not None


def test_a_co_director_added_by_the_owner_may_act_and_admins_always_may(
    admin: Client, tess: Client, tom: Client
) -> None:
    league = tess_league(admin, tess)
    game_id = league["rounds"][0]["games"][0]["game"]
    player = admin.request("POST", f"/leagues/{league['id']}/directors", json={"player": 2**20})
    assert player.status_code == 422  # the league exists; the player it names does not
    alice = league["people"][0]
    not_td = tess.request("POST", f"/leagues/{league['id']}/directors", json={"player": alice.id})
    assert not_td.status_code == 422 and "not a tournament director" in not_td.get_data(True)
    added = tess.ok("POST", f"/leagues/{league['id']}/directors", {"player": tom.id}, 201)
    assert [d["name"] for d in added["league"]["directors"]] == ["Tess", "Tom"]
    again = tess.request("POST", f"/leagues/{league['id']}/directors", json={"player": tom.id})
    assert again.status_code == 409
    tom.ok("POST", f"/games/{game_id}/pause", {"reason": "co-director"})
    admin.ok("POST", f"/games/{game_id}/resume", {"reason": "admin"})
    actions = [e["action"] for e in tess.ok("GET", f"/leagues/{league['id']}/audit")["audit"]]
    assert actions == ["add_director", "pause_game", "resume_game"]


def test_a_game_outside_leagues_belongs_to_the_director_who_created_it(
    admin: Client, tess: Client, tom: Client
) -> None:
    alice, bob = new_player(admin, "Alice"), new_player(admin, "Bob")
    data = {"game": "countdown", "seats": [alice.id, bob.id], "time_control": {"days": 2}}
    game_id = tess.ok("POST", "/games", data, 201)["game"]["id"]
    refused = tom.request("POST", f"/games/{game_id}/pause", json={"reason": "x"})
    assert refused.status_code == 403
    assert "Tom did not create game" in refused.get_json()["error"]["message"]
    tess.ok("POST", f"/games/{game_id}/pause", {"reason": "mine"})


CLI_TOOLS = [
    ["pause", "--league", "{league}", "--reason", "x"],
    ["resume", "--league", "{league}", "--reason", "x"],
    ["invite", "{league}", "new@example.org"],
    ["start", "{league}"],
    ["withdraw", "{league}", "alice@example.org", "--reason", "x"],
    ["message", "{league}", "hello"],
    ["audit", "{league}"],
    ["add-director", "{league}", "tom@example.org"],
    ["next-season", "{league}"],
    ["pause", "--game", "{game}", "--reason", "x"],
    ["resume", "--game", "{game}", "--reason", "x"],
    ["extend", "{game}", "1", "--reason", "x"],
    ["replace", "{game}", "alice@example.org", "bob@example.org", "--reason", "x"],
    ["result", "{game}", "1-0", "--reason", "x"],
    ["process", "{game}", "--reason", "x"],
    ["void", "{game}", "--reason", "x"],
]


def test_a_foreign_director_is_refused_by_every_league_command(
    database: Database, admin: Client, tess: Client, tom: Client, cli_env: dict[str, str]
) -> None:
    league = tess_league(admin, tess)
    ids = {"league": str(league["id"]), "game": str(league["rounds"][0]["games"][0]["game"])}
    before = audit_count(database)
    for tool in CLI_TOOLS:
        args = ["league", "--by", "tom@example.org", *(a.format(**ids) for a in tool)]
        result = CliRunner().invoke(main, args, env=cli_env)
        assert result.exit_code == 2, (tool, result.output)
        assert "error: Tom does not direct league" in result.output, (tool, result.output)
    assert audit_count(database) == before
    args = ["league", "--by", "tess@example.org", "add-director", ids["league"], "tom@example.org"]
    assert CliRunner().invoke(main, args, env=cli_env).exit_code == 0
    args = ["league", "--by", "tom@example.org", "pause", "--game", ids["game"], "--reason", "ok"]
    result = CliRunner().invoke(main, args, env=cli_env)
    assert result.exit_code == 0, result.output
