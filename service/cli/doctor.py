"""``pbem doctor``: check a deployment hop by hop (``service/ops/doctor.py``), and with
``--round-trip ADDRESS`` mail that address and follow the reply back in."""

from __future__ import annotations

import sys

import click

from service import db
from service.config import Settings
from service.ops import doctor


def _say(result: doctor.Result) -> None:
    colour = {"ok": "green", "warn": "yellow", "FAIL": "red"}[result.state]
    state = click.style(f"{result.state:<4}", fg=colour)
    click.echo(f"{state} {result.hop}: {result.said}")
    if result.fix and result.state != "ok":
        click.echo(f"     fix: {result.fix}")


@click.command("doctor")
@click.option(
    "--local",
    is_flag=True,
    help="A deployment on this machine only: the defaults (pbem.localhost, http, mail as files, "
    "no MX, no DKIM key) are warnings, not failures.",
)
@click.option("--no-dns", is_flag=True, help="Do not look up the MX and DKIM records.")
@click.option(
    "--round-trip",
    "address",
    metavar="ADDRESS",
    help="Also mail ADDRESS (yours) and wait for your reply to come back in.",
)
@click.option(
    "--timeout",
    type=float,
    default=600.0,
    show_default=True,
    help="Seconds to wait for the reply of --round-trip.",
)
def doctor_command(local: bool, no_dns: bool, address: str | None, timeout: float) -> None:
    """Check each hop of this deployment: the public URL, the mail domain and its MX, DKIM,
    sender checks, the outgoing relay, database, broker and beat. Each is one line, ok, warn
    or FAIL with the fix; exit 1 if any fails."""
    database = db.configure(Settings.from_env())
    failed = False
    for result in doctor.checks(database, local=local, dns=not no_dns):
        _say(result)
        failed |= result.state == "FAIL"
    if address:
        click.echo(f"round trip: mailing {address}; reply to it (waiting up to {timeout:g} s)")
        for result in doctor.round_trip(database, address, timeout):
            _say(result)
            failed |= result.state == "FAIL"
    sys.exit(1 if failed else 0)
