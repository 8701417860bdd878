"""``pbem dice ...``: check a finished game's dice against its revealed seed (ELE-17)."""

from __future__ import annotations

import json
import sys
from typing import IO

import click

from engine.dice import RecordError, verify
from service import i18n
from service.cli.options import language_option


@click.group("dice")
def dice_group() -> None:
    """Provably fair dice: verify a game's rolls."""


@dice_group.command("verify")
@click.argument("record", type=click.File("r", encoding="utf-8"))
@language_option
def verify_command(record: IO[str], language: str) -> None:
    """Recompute every roll of RECORD (a JSON file, or - for stdin) from its seed.

    Exit status: 0 when every roll matches, 1 on a mismatch, 2 when RECORD cannot be read or
    its seed is not revealed yet.
    """
    translate, ntranslate = i18n.translators(language)
    try:
        report = verify(json.load(record))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        click.echo(f"error: {record.name} is not a JSON dice record: {error}", err=True)
        sys.exit(2)
    except RecordError as error:
        click.echo(f"error: {error.render(translate, ntranslate)}", err=True)
        sys.exit(2)
    for line in report.lines(translate):
        click.echo(line)
    sys.exit(0 if report.ok else 1)
