"""``pbem record ...``: check a game record against its chain (see ``service/chain.py``)."""

from __future__ import annotations

import json
import sys
from typing import IO

import click

from service.chain import ChainError, verify
from service.cli.options import language_option


@click.group("record")
def record_group() -> None:
    """Game records: verify the chain, the moves, the dice and the receipts."""


@record_group.command("verify")
@click.argument("record", type=click.File("r", encoding="utf-8"))
@click.option("--quiet", "-q", is_flag=True, help="Print the summary line only.")
@language_option
def verify_command(record: IO[str], quiet: bool, language: str) -> None:
    """Replay RECORD (the JSON of GET /games/ID/record, or - for stdin) link by link.

    Exit status: 0 when every link matches, 1 naming the first link that does not, 2 when
    RECORD cannot be read as a chained record.
    """
    try:
        report = verify(json.load(record))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        click.echo(f"error: {record.name} is not a JSON game record: {error}", err=True)
        sys.exit(2)
    except ChainError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)
    lines, summary = report.in_language(language)
    for line in [] if quiet else lines:
        click.echo(line)
    click.echo(summary)
    sys.exit(0 if report.ok else 1)
