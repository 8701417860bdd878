"""Options several ``pbem`` commands share."""

from __future__ import annotations

import click

from service import i18n

language_option = click.option(
    "--language",
    type=click.Choice(i18n.LANGUAGES),
    default=i18n.DEFAULT,
    show_default=True,
    help="The language to print the report in.",
)
"""``--language CODE``: the language a command prints its report in (issue 24)."""
