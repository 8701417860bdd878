"""``pbem receipt verify``: recompute the sealed-order receipts of a saved result mail."""

from __future__ import annotations

import sys
from typing import IO

import click

from service.receipts import check_mail


@click.group("receipt")
def receipt_group() -> None:
    """Sealed-order receipts."""


@receipt_group.command("verify")
@click.argument("mail", metavar="MAIL", type=click.File("rb"))
def verify_command(mail: IO[bytes]) -> None:
    """Recompute every receipt in MAIL (a turn result mail saved as .eml, or its text; - for
    stdin) from the orders and salts the mail reveals.

    Exit status: 0 when every receipt matches, 1 on a mismatch, 2 when MAIL shows none.
    """
    checks = check_mail(mail.read())
    if not checks:
        click.echo(f"error: {mail.name} shows no revealed sealed orders with receipts", err=True)
        sys.exit(2)
    for check in checks:
        click.echo(check.line())
    wrong = [check for check in checks if not check.matches]
    if wrong:
        click.echo(f"MISMATCH: {len(wrong)} of {len(checks)} receipts differ")
        sys.exit(1)
    click.echo(f"OK: all {len(checks)} receipts match their orders and salts")
