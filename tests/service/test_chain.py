"""The game chain (service/chain.py): every game played through the service exports a record
that ``pbem record verify`` accepts; a tampered copy fails, naming the first link that does
not match; the chain shows nothing secret before its time; every game mail carries its head."""

from __future__ import annotations

import copy
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from service import chain, games
from service.cli import main
from service.db import Database
from service.models import Outbox
from tests.service.conftest import Client, new_player
from tests.service.mails import readable

GAMES = [
    ("epaminondas", {"board": "8x8"}, 2),
    ("anti-grid", {"board": "small"}, 2),
    ("elasta", {}, 2),
    ("nelaxtam", {"size": "8"}, 2),
    ("elemento", {}, 2),
    ("elemento", {}, 3),
    ("countdown", {}, 2),
    ("duel", {}, 2),
]
CHAIN_LINE = re.compile(r"chain #(\d+) ([0-9a-f]{64})")


def play_to_the_end(
    database: Database, seats: list[Client], game_id: int, rng: random.Random, limit: int = 400
) -> None:
    assert play_rounds(database, seats, game_id, rng, limit), f"game {game_id} did not end"


def play_rounds(
    database: Database, seats: list[Client], game_id: int, rng: random.Random, rounds: int
) -> bool:
    """Random legal moves through the API, each sent by the player whose seat owes it;
    True once the game is over."""
    for _ in range(rounds):
        with database.transaction() as session:
            game = games.get(session, game_id)
            if game.status != games.ACTIVE:
                return True
            state, turn = games.state_of(game), game.turn
            owing = [seat for seat in state.to_act if seat not in state.submitted()]
            texts = {seat: state.format(state.random_action(seat, rng)) for seat in owing}
        for seat, text in texts.items():
            seats[seat].ok("POST", f"/games/{game_id}/moves", {"turn": turn, "text": text})
    with database.transaction() as session:
        return games.get(session, game_id).status != games.ACTIVE


def new_game(admin: Client, seats: list[Client], name: str, options: dict[str, str]) -> int:
    data = {"game": name, "options": options, "seats": [s.id for s in seats[: len(seats)]]}
    return int(admin.ok("POST", "/games", data, status=201)["game"]["id"])


def verify_file(tmp_path: Path, record: dict[str, Any]) -> Any:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return CliRunner().invoke(main, ["record", "verify", str(path)])


def rehash(record: dict[str, Any], start: int) -> dict[str, Any]:
    """Recompute every hash from link ``start`` on, as a forger covering their tracks would."""
    links = record["chain"]
    for index in range(start, len(links)):
        link = links[index]
        link["prev"] = links[index - 1]["hash"]
        link["hash"] = chain.link_hash(index, link["prev"], link["kind"], link["data"])
    return record


@pytest.mark.parametrize(("name", "options", "players"), GAMES)
def test_records_of_games_played_through_the_service_verify(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    tmp_path: Path,
    name: str,
    options: dict[str, str],
    players: int,
) -> None:
    seats = [alice, bob, new_player(admin, "Carol")][:players]
    game_id = new_game(admin, seats, name, options)
    rng = random.Random(f"{name}-{players}")
    play_rounds(database, seats, game_id, rng, 3)  # in progress: rolls unchecked, no seed
    midway = verify_file(tmp_path, alice.ok("GET", f"/games/{game_id}/record"))
    assert midway.exit_code == 0, midway.output
    play_to_the_end(database, seats, game_id, rng)
    record = alice.ok("GET", f"/games/{game_id}/record")
    result = verify_file(tmp_path, record)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].startswith(f"OK: {len(record['chain'])} links")
    assert record["chain"][-1]["kind"] == "end"
    if name == "elemento":
        assert "rolls match the seed" in result.output and " 0 rolls" not in result.output
    if name in ("elasta", "nelaxtam", "duel"):
        assert " 0 receipts" not in result.output


def finished(database: Database, admin: Client, alice: Client, bob: Client, name: str) -> int:
    options = {"board": "8x8"} if name == "epaminondas" else {}
    game_id = new_game(admin, [alice, bob], name, options)
    play_to_the_end(database, [alice, bob], game_id, random.Random(7))
    return game_id


def test_a_tampered_move_fails_naming_the_link(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = finished(database, admin, alice, bob, "epaminondas")
    record = alice.ok("GET", f"/games/{game_id}/record")
    link = next(link for link in record["chain"] if link["kind"] == "move" and link["n"] > 4)
    forged = copy.deepcopy(record)
    forged["chain"][link["n"]]["data"]["text"] = "a1-a2"
    result = verify_file(tmp_path, forged)
    assert result.exit_code == 1
    turn = link["data"]["turn"]
    expected = f"MISMATCH: link #{link['n']} (move, turn {turn}): its hash does not match"
    assert result.output.splitlines()[-1].startswith(expected)
    # Rehashed to hide it, the chain no longer ends in the hash the mails carried, and the
    # engine refuses the forged move at the same link.
    result = verify_file(tmp_path, rehash(forged, link["n"]))
    assert result.exit_code == 1
    assert f"MISMATCH: link #{link['n']} (move, turn {turn}):" in result.output
    # Unchanged links before the forged one are reported as matching.
    assert f"link #{link['n'] - 1} " in result.output


def test_a_tampered_roll_fails_against_the_revealed_seed(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = finished(database, admin, alice, bob, "elemento")
    record = alice.ok("GET", f"/games/{game_id}/record")
    rolls = [link for link in record["chain"] if link["kind"] == "roll"]
    link = rolls[len(rolls) // 2]
    forged = copy.deepcopy(record)
    data = forged["chain"][link["n"]]["data"]
    with database.transaction() as session:
        state = games.state_of(games.get(session, game_id))
    del state  # the outcomes of a roll are the four colour pairs
    data["outcome"] = next(o for o in ("G+R", "G+B", "Y+R", "Y+B") if o != data["outcome"])
    result = verify_file(tmp_path, rehash(forged, link["n"]))
    assert result.exit_code == 1
    assert f"MISMATCH: link #{link['n']} (roll, turn {data['turn']}): roll" in result.output
    assert "the seed gives" in result.output


def test_tampered_sealed_orders_fail_on_their_receipt(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = new_game(admin, [alice, bob], "duel", {})
    alice.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "3"})
    bob.ok("POST", f"/games/{game_id}/moves", {"turn": 1, "text": "1"})
    record = bob.ok("GET", f"/games/{game_id}/record")
    orders = [link for link in record["chain"] if link["kind"] == "orders"]
    assert [(o["data"]["seat"], o["data"]["text"]) for o in orders] == [(0, "3"), (1, "1")]
    forged = copy.deepcopy(record)
    forged["chain"][orders[0]["n"]]["data"]["text"] = "2"
    result = verify_file(tmp_path, rehash(forged, orders[0]["n"]))
    assert result.exit_code == 1
    assert "(orders, turn 1): the receipt of" in result.output


def test_a_director_correction_is_a_link_of_its_own(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = new_game(admin, [alice, bob], "countdown", {})
    admin.ok("PATCH", f"/games/{game_id}/deadline", {"deadline": "2040-01-31T12:00:00Z"})
    play_to_the_end(database, [alice, bob], game_id, random.Random(7))
    before = alice.ok("GET", f"/games/{game_id}/record")
    moved = before["chain"][1]
    assert moved["kind"] == "director" and moved["data"]["action"] == "deadline"
    winner = before["result"]["result"]
    corrected = "0-1" if winner == "1-0" else "1-0"
    data = {"result": corrected, "reason": "scoring slip"}
    admin.ok("POST", f"/games/{game_id}/result", data)
    after = alice.ok("GET", f"/games/{game_id}/record")
    assert after["chain"][: len(before["chain"])] == before["chain"]  # never a rewrite
    last = after["chain"][-1]
    assert last["kind"] == "director" and last["data"]["action"] == "correct_result"
    assert last["data"]["detail"]["result"]["result"] == corrected
    result = verify_file(tmp_path, after)
    assert result.exit_code == 0, result.output
    # A record claiming the correction without its link fails.
    after["chain"].pop()
    result = verify_file(tmp_path, after)
    assert result.exit_code == 1 and "differs from the chain's" in result.output


def test_the_chain_keeps_sealed_orders_and_the_seed_secret_until_their_time(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    sealed = new_game(admin, [alice, bob], "duel", {})
    alice.ok("POST", f"/games/{sealed}/moves", {"turn": 1, "text": "3"})
    seen_by_bob = bob.ok("GET", f"/games/{sealed}/record")["chain"]
    assert [link["kind"] for link in seen_by_bob] == ["start"]
    dice = new_game(admin, [alice, bob], "elemento", {})
    play_rounds(database, [alice, bob], dice, random.Random(3), 4)
    with database.transaction() as session:
        seed = games.get(session, dice).seed
        assert seed is not None
        mails = [
            readable(row) for row in session.scalars(select(Outbox).where(Outbox.game_id == dice))
        ]
    text = json.dumps(bob.ok("GET", f"/games/{dice}/record")) + "".join(mails)
    assert seed.hex() not in text
    assert "roll" in text


def test_every_game_mail_carries_the_chain_head_of_its_moment(
    database: Database, admin: Client, alice: Client, bob: Client
) -> None:
    game_id = finished(database, admin, alice, bob, "countdown")
    links = {
        link["n"]: link["hash"] for link in alice.ok("GET", f"/games/{game_id}/record")["chain"]
    }
    with database.transaction() as session:
        query = select(Outbox).where(Outbox.game_id == game_id).order_by(Outbox.id)
        rows = list(session.scalars(query))  # by id: PostgreSQL returns updated rows anywhere
        assert rows
        for row in rows:
            found = CHAIN_LINE.findall(readable(row))
            assert found, row.kind
            for number, digest in found:
                assert links[int(number)] == digest
        last = rows[-1]
        assert last.kind == "game_over"
        assert f"chain #{max(links)} {links[max(links)]}" in readable(last)


def test_a_game_started_from_a_directors_position_verifies_from_that_position(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    position = "BBBBBBBB/8/8/8/8/8/8/WWWWWWWW w"
    data = {
        "game": "epaminondas",
        "options": {"board": "8x8"},
        "seats": [alice.id, bob.id],
        "position": position,
    }
    game_id = int(admin.ok("POST", "/games", data, status=201)["game"]["id"])
    play_to_the_end(database, [alice, bob], game_id, random.Random(11))
    record = alice.ok("GET", f"/games/{game_id}/record")
    assert record["chain"][0]["data"]["position"] == record["start_position"]
    result = verify_file(tmp_path, record)
    assert result.exit_code == 0, result.output
    # A record that claims another start than its chain fails at the start link.
    forged = copy.deepcopy(record)
    forged["start_position"] = None
    result = verify_file(tmp_path, forged)
    assert result.exit_code == 1
    assert "link #0 (start): the record's start_position" in result.output


def test_a_step_edited_in_the_record_outside_the_chain_fails_naming_it(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = finished(database, admin, alice, bob, "epaminondas")
    forged = alice.ok("GET", f"/games/{game_id}/record")
    third = forged["steps"][2]
    third["text"] = edited = "a1-a2" if third["text"] != "a1-a2" else "b1-b2"
    result = verify_file(tmp_path, forged)
    assert result.exit_code == 1
    assert f"MISMATCH: the record's step 3 is {edited} (seat 0)" in result.output


@pytest.mark.parametrize("ending", ["resign", "draw"])
def test_games_ended_off_the_board_verify(
    database: Database,
    admin: Client,
    alice: Client,
    bob: Client,
    tmp_path: Path,
    ending: str,
) -> None:
    game_id = new_game(admin, [alice, bob], "elemento", {})
    play_rounds(database, [alice, bob], game_id, random.Random(5), 3)
    if ending == "resign":
        bob.ok("POST", f"/games/{game_id}/resign", {})
    else:
        alice.ok("POST", f"/games/{game_id}/draw/offer", {})
        bob.ok("POST", f"/games/{game_id}/draw/accept", {})
    record = alice.ok("GET", f"/games/{game_id}/record")
    assert record["status"] == "finished" and record["chain"][-1]["data"]["by"] == ending
    result = verify_file(tmp_path, record)
    assert result.exit_code == 0, result.output
    assert "rolls match the seed" in result.output and " 0 rolls" not in result.output


def test_extending_a_deadline_and_replacing_a_player_are_links_of_their_own(
    database: Database, admin: Client, alice: Client, bob: Client, tmp_path: Path
) -> None:
    game_id = new_game(admin, [alice, bob], "elasta", {})
    carol = new_player(admin, "Carol")
    admin.ok("POST", f"/games/{game_id}/extend", {"days": 2, "reason": "holiday"})
    data = {"player": bob.id, "by": carol.id, "reason": "Bob left the club"}
    admin.ok("POST", f"/games/{game_id}/replace", data)
    record = alice.ok("GET", f"/games/{game_id}/record")
    acts = [link["data"] for link in record["chain"] if link["kind"] == "director"]
    assert [act["action"] for act in acts] == ["deadline", "replace"]
    assert acts[0]["detail"].endswith("(+2 days): holiday")
    assert acts[1]["detail"] == {"seat": 1, "player": "Carol", "reason": "Bob left the club"}
    result = verify_file(tmp_path, record)
    assert result.exit_code == 0, result.output
