"""ELE-17 end to end: Elemento games played through the service verify with ``pbem dice verify``.

The path a sceptical player walks: play a game through the API, download the record it exports
(``GET /api/v1/games/ID/record``) once the game is over, and run the documented verifier on it.
A record with one roll changed must fail.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine import new_game
from service.cli import main
from tests.service.conftest import Client, new_player

ROLLS = ("G+R", "G+B", "Y+R", "Y+B")


def play_to_the_end(players: list[Client], seed: int) -> dict[str, Any]:
    """Random legal moves through the API until the game ends; the exported record."""
    rng = random.Random(seed)
    creator = players[0]
    data = {"game": "elemento", "seats": [p.id for p in players]}
    game = creator.ok("POST", "/games", data, status=201)["game"]
    path = f"/games/{game['id']}"
    rules = new_game("elemento", game["options"], len(players))
    for _ in range(2000):
        record = creator.ok("GET", path + "/record")
        if record["status"] != "active":
            return record
        assert record["seed"] is None, "the seed is secret until the game ends"
        state = rules.parse_position(record["position"])
        (seat,) = state.to_act
        text = state.format(state.random_action(seat, rng))
        turn = creator.ok("GET", path)["game"]["turn"]
        players[seat].ok("POST", path + "/moves", {"turn": turn, "text": text})
    raise AssertionError("the game did not end")


def verify(tmp_path: Path, record: dict[str, Any], name: str) -> Any:
    target = tmp_path / name
    target.write_text(json.dumps(record))
    return CliRunner().invoke(main, ["dice", "verify", str(target)])


@pytest.mark.parametrize("count", [2, 3, 4])
def test_ele17_a_service_played_game_verifies_and_a_tampered_copy_does_not(
    admin: Client, tmp_path: Path, count: int
) -> None:
    players = [new_player(admin, name) for name in ("Ann", "Ben", "Cy", "Di")[:count]]
    record = play_to_the_end(players, seed=count)
    assert record["seed"] is not None
    rolls = [step for step in record["steps"] if step["kind"] == "chance"]
    assert len(rolls) >= 2

    honest = verify(tmp_path, record, "record.json")
    assert honest.exit_code == 0, honest.output
    assert honest.output.splitlines()[-1] == f"OK: all {len(rolls)} rolls match the committed seed"

    tampered = copy.deepcopy(record)
    # the last dice roll (not the seating draw) changed to another face
    index = max(
        i
        for i, step in enumerate(tampered["steps"])
        if step["kind"] == "chance" and step["outcome"] in ROLLS
    )
    recorded = tampered["steps"][index]["outcome"]
    tampered["steps"][index]["outcome"] = next(r for r in ROLLS if r != recorded)
    changed = verify(tmp_path, tampered, "tampered.json")
    assert changed.exit_code == 1, changed.output
    assert "MISMATCH" in changed.output.splitlines()[-1]
