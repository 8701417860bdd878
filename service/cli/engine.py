"""``pbem engine ...``: look at positions and moves without a server."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any

import click

from engine import EngineError, Game, State, new_game
from engine.perft import perft


@contextmanager
def player_errors() -> Iterator[None]:
    """Turn engine errors into one clear line on stderr and exit status 2."""
    try:
        yield
    except EngineError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(2)


def game_arguments(command: Callable[..., Any]) -> Callable[..., Any]:
    """GAME, --option KEY=VALUE, --players N and --position POS, resolved to a State."""

    @click.argument("game_name", metavar="GAME")
    @click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE")
    @click.option("--players", "-p", type=int, default=None, help="Number of players.")
    @click.option("--position", default=None, metavar="POS", help="A position string.")
    @wraps(command)
    def wrapper(
        game_name: str,
        options: tuple[str, ...],
        players: int | None,
        position: str | None,
        **kwargs: Any,
    ) -> Any:
        with player_errors():
            game = new_game(game_name, parse_options(options), players)
            state = game.parse_position(position) if position else game.initial_state()
            return command(game, state, **kwargs)

    return wrapper


def parse_options(pairs: tuple[str, ...]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not KEY=VALUE", param_hint="--option")
        options[key] = value
    return options


def seat_of(game: Game, label: str) -> int:
    """A seat from its name (``white``) or its number from 1."""
    names = [name.lower() for name in game.seat_names]
    if label.lower() in names:
        return names.index(label.lower())
    if label.isdigit() and 1 <= int(label) <= game.players:
        return int(label) - 1
    valid = ", ".join([*game.seat_names, *map(str, range(1, game.players + 1))])
    raise click.BadParameter(f"no seat {label!r}; seats are {valid}", param_hint="--orders")


@click.group("engine")
def engine_group() -> None:
    """Positions, legal moves and perft, straight from the rules engine."""


@engine_group.command("perft")
@game_arguments
@click.option("--depth", "-d", type=click.IntRange(1, 8), required=True)
def perft_command(game: Game, state: State, depth: int) -> None:
    """Count move paths to each depth (sequential games)."""
    for level in range(1, depth + 1):
        click.echo(f"perft({level}) = {perft(state, level)}")


@engine_group.command("moves")
@game_arguments
@click.option("--seat", default=None, help="Seat to list moves for (default: the one to act).")
@click.option(
    "--limit",
    type=click.IntRange(0),
    default=10_000,
    show_default=True,
    help="List at most this many (sealed orders can number in the millions); the count is exact.",
)
def moves_command(game: Game, state: State, seat: str | None, limit: int) -> None:
    """List the legal moves, one per line, then a count line."""
    if state.chance_outcomes():
        raise click.ClickException("a chance step is due: " + ", ".join(state.chance_outcomes()))
    chosen = seat_of(game, seat) if seat else (state.to_act[0] if state.to_act else None)
    if chosen is None:
        click.echo(state.status())
        click.echo("0 moves")
        return
    actions = state.legal_actions(chosen)
    for action in itertools.islice(actions, limit):
        click.echo(state.format(action))
    if len(actions) > limit:
        click.echo(f"... {len(actions) - limit} more not listed (--limit)")
    click.echo(f"{len(actions)} moves")


@engine_group.command("show")
@game_arguments
def show_command(game: Game, state: State) -> None:
    """Print the ASCII board of a position, as emails show it."""
    click.echo(state.ascii())
    for line in (*state.info(), state.status(), f"Position: {state.position()}"):
        click.echo(line)


@engine_group.command("resolve")
@game_arguments
@click.option("--orders", "orders", multiple=True, metavar="SEAT=TEXT", required=True)
def resolve_command(game: Game, state: State, orders: tuple[str, ...]) -> None:
    """Play one turn from a position: sealed orders per seat, or one seat's move."""
    with player_errors():
        given = [
            (seat_of(game, seat), text) for seat, _, text in (o.partition("=") for o in orders)
        ]
        if state.simultaneous:
            for seat, text in given:
                state = state.submit(seat, text)
            resolution = state.resolve()
        else:
            if len(given) != 1:
                raise click.UsageError("a sequential game takes one --orders SEAT=MOVE")
            resolution = state.play(*given[0])
        for event in resolution.events:
            click.echo(f"- {event.text}")
        click.echo(resolution.state.ascii())
        click.echo(resolution.state.status())
        click.echo(f"Position: {resolution.state.position()}")
