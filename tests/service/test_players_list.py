"""Directors find players: ``GET /api/v1/players`` (search, pages) and ``pbem player list``;
``pbem player token EMAIL`` gives a player a new token and ends the old one."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner, Result

from service.cli import main
from service.db import Database
from tests.service.conftest import Client, new_player


def cli(database: Database, *args: str) -> Result:
    env = {
        "DATABASE_URL": database.settings.database_url,
        "PBEM_VAR_DIR": str(database.settings.var_dir),
        "PBEM_GAME_MODULES": "tests.service.toys",
    }
    return CliRunner().invoke(main, ["player", *args], env=env)


def names(page: dict[str, Any]) -> list[str]:
    return [item["name"] for item in page["players"]]


@pytest.fixture
def roster(admin: Client) -> dict[str, Client]:
    """Alice and Bob in two games (one of them finished), Carol in none."""
    alice, bob, carol = (new_player(admin, name) for name in ("Alice", "Bob", "Carol"))
    seats = {"game": "countdown", "seats": [alice.id, bob.id]}
    first, _ = (admin.ok("POST", "/games", seats, status=201)["game"] for _ in range(2))
    alice.ok("POST", f"/games/{first['id']}/resign")
    return {"alice": alice, "bob": bob, "carol": carol}


def test_a_director_lists_every_player_in_id_order_with_addresses_and_game_counts(
    admin: Client, roster: dict[str, Client]
) -> None:
    page = admin.ok("GET", "/players")
    assert names(page) == ["Ada Admin", "Alice", "Bob", "Carol"]
    assert page["total"] == 4
    assert page["next_offset"] is None
    alice = page["players"][1]
    assert alice["emails"] == ["alice@example.org"]
    assert alice["roles"] == ["player"]
    assert (alice["games"], alice["active_games"]) == (2, 1)
    assert (page["players"][3]["games"], page["players"][3]["active_games"]) == (0, 0)


def test_the_search_matches_part_of_a_name_or_an_address_in_any_case(
    admin: Client, roster: dict[str, Client]
) -> None:
    assert names(admin.ok("GET", "/players?q=aLi")) == ["Alice"]
    assert names(admin.ok("GET", "/players?q=BOB@EXAMPLE")) == ["Bob"]
    assert names(admin.ok("GET", "/players?q=example.org")) == [
        "Ada Admin",
        "Alice",
        "Bob",
        "Carol",
    ]
    nobody = admin.ok("GET", "/players?q=zed")
    assert (nobody["players"], nobody["total"], nobody["next_offset"]) == ([], 0, None)


def test_the_search_takes_percent_and_underscore_as_themselves(
    admin: Client, roster: dict[str, Client]
) -> None:
    assert names(admin.ok("GET", "/players?q=%25")) == []
    assert names(admin.ok("GET", "/players?q=_")) == []


def test_pages_follow_next_offset_to_the_end_without_repeating_anyone(
    admin: Client, roster: dict[str, Client]
) -> None:
    first = admin.ok("GET", "/players?limit=3")
    assert names(first) == ["Ada Admin", "Alice", "Bob"]
    assert (first["total"], first["next_offset"]) == (4, 3)
    last = admin.ok("GET", f"/players?limit=3&offset={first['next_offset']}")
    assert names(last) == ["Carol"]
    assert last["next_offset"] is None


def test_a_player_who_is_no_director_is_refused_in_the_apis_error_shape(
    roster: dict[str, Client],
) -> None:
    response = roster["alice"].get("/players")
    assert response.status_code == 403
    error = response.get_json()["error"]
    assert error["code"] == "forbidden"
    assert error["message"] == "only tournament directors and admins list players"


def test_no_token_is_a_401(anonymous: Client) -> None:
    assert anonymous.get("/players").status_code == 401


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("limit=0", "limit 0 is out of range: give 1 to 200 players a page"),
        ("limit=201", "limit 201 is out of range: give 1 to 200 players a page"),
        ("limit=ten", "limit must be a whole number, not 'ten'"),
        ("offset=-1", "offset must be a whole number, not '-1'"),
        ("q=" + "x" * 201, "at most 200 characters"),
    ],
)
def test_a_bad_page_or_search_is_a_400_that_says_what_is_valid(
    admin: Client, query: str, said: str
) -> None:
    response = admin.get(f"/players?{query}")
    assert response.status_code == 400
    assert said in response.get_json()["error"]["message"]


def test_the_openapi_document_describes_the_list_and_its_query(admin: Client) -> None:
    document = admin.ok("GET", "/openapi.json")
    operation = document["paths"]["/players"]["get"]
    assert [p["name"] for p in operation["parameters"]] == ["q", "limit", "offset"]
    body = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert body["$ref"].endswith("/PlayerList")
    schemas = document["components"]["schemas"]
    assert schemas["PlayerList"]["properties"]["players"]["items"]["$ref"].endswith("/ListedPlayer")
    listed = schemas["ListedPlayer"]
    assert set(listed["required"]) >= {"id", "name", "roles", "emails", "active_games"}


def test_pbem_player_list_prints_a_table_of_the_players(
    database: Database, roster: dict[str, Client]
) -> None:
    result = cli(database, "list")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["ID", "NAME", "ROLES", "ADDRESSES", "GAMES"]
    alice = next(line for line in lines if "Alice" in line)
    assert alice.split() == [str(roster["alice"].id), "Alice", "player", "alice@example.org", "1/2"]
    assert len(lines) == 5


def test_pbem_player_list_search_and_json(database: Database, roster: dict[str, Client]) -> None:
    result = cli(database, "list", "--search", "CAR", "--json")
    assert result.exit_code == 0, result.output
    [carol] = json.loads(result.output)["players"]
    assert (carol["name"], carol["emails"], carol["games"]) == ("Carol", ["carol@example.org"], 0)
    assert cli(database, "list", "--search", "zed").output == "no players match 'zed'\n"


def test_pbem_player_token_replaces_the_players_token(
    database: Database, roster: dict[str, Client]
) -> None:
    alice = roster["alice"]
    result = cli(database, "token", "Alice@Example.org")
    assert result.exit_code == 0, result.output
    token = result.output.strip()
    assert token.startswith("pbem_")
    assert alice.get("/players/me").status_code == 401
    renewed = Client(alice.client, token, alice.player)
    assert renewed.ok("GET", "/players/me")["player"]["id"] == alice.id


def test_pbem_player_token_of_an_unknown_address_is_one_line_and_exit_2(
    database: Database, roster: dict[str, Client]
) -> None:
    result = cli(database, "token", "nobody@example.org")
    assert result.exit_code == 2
    assert result.output == (
        "error: no player has the address 'nobody@example.org'; "
        "see `pbem player list --search TEXT`\n"
    )
