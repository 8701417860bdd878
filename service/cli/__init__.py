"""``pbem``: the one command-line entry point, with subcommands grouped by area."""

from __future__ import annotations

import click

from service.cli.dice import dice_group
from service.cli.engine import engine_group
from service.cli.league import league_group
from service.cli.mail import demo_command, mail_group
from service.cli.server import db_group, player_group, run_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Play-by-email game service."""


main.add_command(engine_group)
for command in (run_command, db_group, player_group):
    main.add_command(command)
main.add_command(mail_group)
main.add_command(demo_command)
main.add_command(dice_group)
main.add_command(league_group)
