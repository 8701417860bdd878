"""Provably fair dice (ELE-17): engine/dice.py (the CLI is in tests/service/test_dice_cli.py)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from collections import Counter
from typing import Any

import pytest

from engine import new_game
from engine.dice import (
    DiceLog,
    RecordError,
    commitment,
    history_digest,
    roll,
    unbiased_index,
    verify,
)

ROLLS = ["G+R", "G+B", "Y+R", "Y+B"]
SEED = bytes(range(32))


def finished_game(players: int = 2, dice: str = "rolled", play_seed: int = 5) -> DiceLog:
    """A whole Elemento game with fair dice; moves drawn by a seeded RNG."""
    rng = random.Random(play_seed)
    log = DiceLog(new_game("elemento", {"dice": dice}, players), "game-42", SEED)
    while not log.state.is_over:
        if log.state.chance_outcomes():
            log.roll()
        else:
            seat = log.state.to_act[0]
            log.play(seat, log.state.random_action(seat, rng))
    return log


def test_ele17_commitment_is_the_hex_sha256_of_the_seed() -> None:
    assert commitment(SEED) == hashlib.sha256(SEED).hexdigest()
    assert len(commitment(SEED)) == 64


def test_ele17_roll_is_deterministic_in_seed_game_number_and_history() -> None:
    first = roll(SEED, "g", 3, ["E@a4"], ROLLS)
    assert all(roll(SEED, "g", 3, ["E@a4"], ROLLS) == first for _ in range(5))
    draws = {
        "seed": [roll(bytes(32), "g", n, ["E@a4"], ROLLS) for n in range(1, 30)],
        "game": [roll(SEED, "h", n, ["E@a4"], ROLLS) for n in range(1, 30)],
        "history": [roll(SEED, "g", n, ["E@a3"], ROLLS) for n in range(1, 30)],
        "same": [roll(SEED, "g", n, ["E@a4"], ROLLS) for n in range(1, 30)],
    }
    assert draws["seed"] != draws["same"]
    assert draws["game"] != draws["same"]
    assert draws["history"] != draws["same"]


def test_ele17_the_documented_construction_recomputes_a_roll() -> None:
    """The module docstring's recipe, written out independently."""
    digest = hashlib.sha256()
    for text in ["E@a4", "w@b2"]:
        digest.update(len(text.encode()).to_bytes(4, "big") + text.encode())
    assert digest.digest() == history_digest(["E@a4", "w@b2"])
    game_id = b"g-1"
    message = (
        b"pbem-dice-v1"
        + len(game_id).to_bytes(4, "big")
        + game_id
        + (7).to_bytes(8, "big")
        + digest.digest()
        + (0).to_bytes(4, "big")
    )
    value = int.from_bytes(hmac.new(SEED, message, hashlib.sha256).digest(), "big")
    outcomes = ["1-2-3", "1-3-2", "2-1-3", "2-3-1", "3-1-2", "3-2-1"]
    assert roll(SEED, "g-1", 7, ["E@a4", "w@b2"], outcomes) == outcomes[value % 6]


def test_ele17_rolls_are_roughly_uniform_over_many_roll_numbers() -> None:
    counts = Counter(roll(SEED, "uniform", n, ["E@a4"], ROLLS) for n in range(1, 4001))
    assert set(counts) == set(ROLLS)
    assert all(850 <= count <= 1150 for count in counts.values()), counts
    seats = Counter(roll(SEED, "seats", n, [], [str(i) for i in range(24)]) for n in range(2400))
    assert len(seats) == 24 and all(50 <= count <= 150 for count in seats.values()), seats


def test_ele17_no_modulo_bias_blocks_above_the_last_multiple_are_rejected() -> None:
    """2**256 mod 3 == 1: the single top value would favour index 0, so it is redrawn."""
    top = (2**256 - 1).to_bytes(32, "big")
    blocks = {0: top, 1: (5).to_bytes(32, "big")}
    asked: list[int] = []

    def block(counter: int) -> bytes:
        asked.append(counter)
        return blocks[counter]

    assert unbiased_index(block, 3) == 5 % 3
    assert asked == [0, 1]
    asked.clear()
    assert unbiased_index(block, 4) == (2**256 - 1) % 4  # 4 divides 2**256: nothing rejected
    assert asked == [0]


def test_ele17_verify_accepts_an_honest_finished_game() -> None:
    log = finished_game()
    record = json.loads(json.dumps(log.record(reveal=True)))
    report = verify(record)
    assert report.ok
    assert len(report.checks) == log.rolls > 10
    assert report.lines()[0] == "commitment: SHA-256 of the seed matches"
    assert report.lines()[1] == f"roll 1: {record['steps'][0]['outcome']} matches"
    assert report.summary() == f"OK: all {log.rolls} rolls match the committed seed"


@pytest.mark.parametrize(("players", "dice"), [(3, "rolled"), (4, "turned")])
def test_ele17_verify_covers_the_seating_draw_and_turned_dice(players: int, dice: str) -> None:
    log = finished_game(players, dice)
    record = log.record(reveal=True)
    assert record["steps"][0]["outcome"].count("-") == players - 1
    assert verify(record).ok


def test_ele17_history_holds_canonical_move_texts() -> None:
    log = DiceLog(new_game("elemento"), "g", SEED)
    log.roll()
    action = log.state.legal_actions(0)[0]
    text = log.state.format(action)
    log.play(0, text.lower())
    assert log.history == [text]
    assert log.steps[-1] == {"kind": "move", "seat": 0, "text": text}


def tamper(record: dict[str, Any], index: int, **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(record)
    changed["steps"][index].update(changes)
    return changed


def test_ele17_verify_rejects_a_changed_roll_and_says_which() -> None:
    record = finished_game().record(reveal=True)
    index = next(i for i, s in enumerate(record["steps"]) if s["kind"] == "chance" and i > 5)
    recorded = record["steps"][index]["outcome"]
    other = next(outcome for outcome in ROLLS if outcome != recorded)
    report = verify(tamper(record, index, outcome=other))
    assert not report.ok
    bad = report.mismatches[0]
    assert bad.step == index + 1
    assert bad.describe() == (
        f"roll {bad.number}: recorded {other}, seed gives {recorded} — MISMATCH"
    )


def test_ele17_verify_rejects_a_changed_move_at_the_next_rolls() -> None:
    record = finished_game().record(reveal=True)
    state = new_game("elemento").initial_state()
    # replay to the second move, then substitute another legal move there
    for index, step in enumerate(record["steps"]):
        if step["kind"] == "chance":
            state = state.apply_chance(step["outcome"]).state
            continue
        if index > 3:
            break
        state = state.play(step["seat"], step["text"]).state
    others = [state.format(a) for a in state.legal_actions(step["seat"])]
    replacement = next(text for text in others if text != step["text"])
    report = verify(tamper(record, index, text=replacement))
    assert not report.ok
    assert report.commitment_matches
    assert report.mismatches, report.lines()
    assert report.mismatches[0].step > index + 1  # the first roll after the changed move


def test_ele17_verify_rejects_a_wrong_seed_at_the_commitment() -> None:
    record = finished_game().record(reveal=True)
    record["seed"] = bytes(32).hex()
    report = verify(record)
    assert not report.commitment_matches
    assert report.lines()[0] == "commitment: SHA-256 of the seed differs — MISMATCH"
    assert report.summary().startswith("MISMATCH: the seed does not match the commitment")


def test_ele17_an_unrevealed_seed_cannot_be_verified() -> None:
    record = finished_game().record()
    assert record["seed"] is None
    with pytest.raises(RecordError, match="the seed is not revealed yet"):
        verify(record)


def test_ele17_an_illegal_recorded_move_stops_the_replay_and_says_where() -> None:
    record = finished_game().record(reveal=True)
    index = next(i for i, s in enumerate(record["steps"]) if s["kind"] == "move")
    report = verify(tamper(record, index, text="zz"))
    assert report.problem is not None and report.problem.startswith(f"step {index + 1}: ")
    report = verify(tamper(record, index, seat=1))
    assert report.problem == (f"step {index + 1} records a move but the game says: Light to move")


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ([], "a dice record is a JSON object"),
        ({"game": "elemento"}, "the record lacks game_id, commitment, seed, steps"),
        ({"game": "elemento", "game_id": "g", "commitment": "", "seed": "xy", "steps": []},
         "not hexadecimal"),
        ({"game": "chess", "game_id": "g", "commitment": "", "seed": "00", "steps": []},
         "unknown game"),
        ({"game": "elemento", "game_id": "g", "commitment": "", "seed": "00", "steps": [{}]},
         "step 1 is neither"),
    ],
)  # fmt: skip
def test_ele17_unreadable_records_are_explained(record: Any, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        verify(record)
