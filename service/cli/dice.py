"""``pbem dice ...``: check a finished game's dice against its revealed seed (ELE-17)."""

from __future__ import annotations

import json
import sys
from typing import IO

import click

from engine.dice import RecordError, verify


@click.group("dice")
def dice_group() -> None:
    """Provably fair dice: verify a game's rolls."""


@dice_group.command("verify")
@click.argument("record", type=click.File("r", encoding="utf-8"))
def verify_command(record: IO[str]) -> None:
    """Recompute every roll of RECORD (a JSON file, or - for stdin) from its seed.

    Exit status: 0 when every roll matches, 1 on a mismatch, 2 when RECORD cannot be read or
    its seed is not revealed yet.
    """
    try:
        report = verify(json.load(record))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        click.echo(f"error: {record.name} is not a JSON dice record: {error}", err=True)
        sys.exit(2)
    except RecordError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    for line in report.lines():
        click.echo(line)
    sys.exit(0 if report.ok else 1)
