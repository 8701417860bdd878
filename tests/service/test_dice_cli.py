"""``pbem dice verify``: exit 0 on an honest record, 1 on a tampered one, 2 when unreadable."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from service.cli import main
from tests.engine.test_dice import ROLLS, finished_game


def tamper(record: dict[str, Any], index: int, **changes: Any) -> dict[str, Any]:
    changed = copy.deepcopy(record)
    changed["steps"][index].update(changes)
    return changed


def write(path: Path, record: Any) -> str:
    path.write_text(json.dumps(record))
    return str(path)


def test_cli_dice_verify_honest_record_exits_0(tmp_path: Path) -> None:
    log = finished_game()
    result = CliRunner().invoke(
        main, ["dice", "verify", write(tmp_path / "honest.json", log.record(reveal=True))]
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith("roll 1: ") and lines[1].endswith(" matches")
    assert lines[-1] == f"OK: all {log.rolls} rolls match the committed seed"


def test_cli_dice_verify_tampered_record_exits_1_naming_the_roll(tmp_path: Path) -> None:
    record = finished_game().record(reveal=True)
    recorded = record["steps"][0]["outcome"]
    other = next(outcome for outcome in ROLLS if outcome != recorded)
    path = write(tmp_path / "tampered.json", tamper(record, 0, outcome=other))
    result = CliRunner().invoke(main, ["dice", "verify", path])
    assert result.exit_code == 1
    assert f"roll 1: recorded {other}, seed gives {recorded} — MISMATCH" in result.output
    assert result.output.splitlines()[-1].startswith(
        "MISMATCH: 1 of 1 rolls differ (first: roll 1)"
    )


def test_cli_dice_verify_reads_stdin(tmp_path: Path) -> None:
    record = json.dumps(finished_game().record(reveal=True))
    result = CliRunner().invoke(main, ["dice", "verify", "-"], input=record)
    assert result.exit_code == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [("{not json", "is not a JSON dice record"), ('{"game": "elemento"}', "the record lacks")],
)
def test_cli_dice_verify_unreadable_input_exits_2(
    tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(main, ["dice", "verify", str(path)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_dice_verify_unrevealed_seed_and_missing_file_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path / "open.json", finished_game().record())
    result = CliRunner().invoke(main, ["dice", "verify", path])
    assert result.exit_code == 2
    assert "the seed is not revealed yet" in result.output
    missing = CliRunner().invoke(main, ["dice", "verify", str(tmp_path / "none.json")])
    assert missing.exit_code == 2
    assert missing.exception is None or isinstance(missing.exception, SystemExit)
