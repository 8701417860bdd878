"""``pbem``: the one command-line entry point, with subcommands grouped by area.

Each group is imported only when it is run (``pbem engine ...`` loads the engine and click,
not the ORM, Flask or Celery); ``pbem --help`` imports them all to show their help.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

COMMANDS = {
    "engine": "service.cli.engine:engine_group",
    "run": "service.cli.server:run_command",
    "db": "service.cli.server:db_group",
    "player": "service.cli.server:player_group",
    "mail": "service.cli.mail:mail_group",
    "demo": "service.cli.mail:demo_command",
    "dice": "service.cli.dice:dice_group",
    "league": "service.cli.league:league_group",
    "receipt": "service.cli.receipt:receipt_group",
    "record": "service.cli.record:record_group",
    "game": "service.cli.game:game_group",
    "status": "service.cli.status:status_command",
    "doctor": "service.cli.doctor:doctor_command",
}
"""Command name → ``module:attribute`` of its click command."""


class LazyGroup(click.Group):
    """A group whose subcommands are imported on first use (click's documented pattern)."""

    def __init__(self, *args: Any, lazy: dict[str, str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.lazy:
            return super().get_command(ctx, cmd_name)
        module, _, attribute = self.lazy[cmd_name].partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=LazyGroup, lazy=COMMANDS, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Play-by-email game service."""
